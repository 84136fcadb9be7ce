/**
 * `--tls-san` on `kvol up` and `kvol server`, as k3s's flag and kubeadm's `certSANs`: more names and
 * addresses for the API server's serving certificate (a load balancer's name, a floating IP, the
 * address of a NAT), repeatable and comma-separated. Each must be an IP address, a DNS name, or a
 * DNS name with a leading wildcard label (`*.example.com`), as kubeadm checks them. The certificate
 * is signed at every start, so a changed list takes effect at the next start; the CA stays.
 */
import { isIP } from "node:net";
import { dns1123SubdomainProblems } from "../../api/validation/names.ts";

export const tlsSanUsage = `  --tls-san NAME,…
                  more DNS names or IP addresses for the API server's certificate (signed by
                  DATA/ca.crt at every start), e.g. a load balancer's name or a public address;
                  comma-separated, and the flag may be repeated`;

const wildcardPrefix = "*.";

/** Why `name` cannot be a subject alternative name (a predicate: "is not …"), or undefined when it can. */
function sanProblem(name: string): string | undefined {
  const version = isIP(name);
  if (version === 6 && name.includes(".")) {
    return "is an IPv6 address with an embedded IPv4 part; write it in hexadecimal groups only";
  }
  if (version !== 0) return undefined;
  if (name.startsWith("[")) return "has brackets; write an IPv6 address without them";
  const domain = name.startsWith(wildcardPrefix) ? name.slice(wildcardPrefix.length) : name;
  // Digits and dots only is a mistyped IPv4 address, never a host name (no top-level domain is numeric).
  const numeric = /^[0-9.]+$/.test(domain);
  if (!numeric && dns1123SubdomainProblems(domain.toLowerCase()).length === 0) return undefined;
  return "is not a valid IP address, DNS name or DNS name with a leading wildcard label (*.example.com)";
}

/** The names of every `--tls-san` given, in order, without repeats; throws an Error naming the flag and the bad value. */
export function parseTlsSanFlags(values: readonly string[] | undefined): string[] {
  const names: string[] = [];
  for (const value of values ?? []) {
    const parts = value.split(",").map((part) => part.trim());
    if (parts.every((part) => part === "")) throw new Error("--tls-san needs a DNS name or an IP address");
    for (const part of parts) {
      if (part === "") continue;
      const problem = sanProblem(part);
      if (problem !== undefined) throw new Error(`--tls-san: ${JSON.stringify(part)} ${problem}`);
      const name = isIP(part) === 0 ? part.toLowerCase() : part;
      if (!names.includes(name)) names.push(name);
    }
  }
  return names;
}
