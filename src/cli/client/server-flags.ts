/**
 * How kvol's long-running clients of the API server (`kvol node`, `kvol csi-driver`) are told where
 * it is and how to trust it, with kubectl's flags: `--kubeconfig F` (its current context's server,
 * certificate authority and token, as the kubelet reads its own), and `--server URL[,URL…]`,
 * `--certificate-authority F`, `--token T` / `--token-file F`, each overriding what the kubeconfig says.
 */
import { readFileSync } from "node:fs";
import { errorMessage } from "../../runtime/error-message.ts";
import { loadClusterAccess } from "./kubeconfig.ts";

export const serverFlagOptions = {
  kubeconfig: { type: "string" },
  server: { type: "string" },
  "certificate-authority": { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
} as const;

export interface ServerFlagValues {
  kubeconfig?: string | undefined;
  server?: string | undefined;
  "certificate-authority"?: string | undefined;
  token?: string | undefined;
  "token-file"?: string | undefined;
}

export interface ServerAccess {
  /** One URL, or several separated by commas (tried in turn). */
  serverUrl: string;
  token?: string;
  /** The certificate authorities an `https://` server's certificate must chain to (PEM); the system's when absent. */
  caPem?: string;
}

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${flag} ${path}: ${errorMessage(error)}`);
  }
}

function tokenFromFlags(values: ServerFlagValues): string | undefined {
  const { token, "token-file": tokenFile } = values;
  if (token !== undefined && tokenFile !== undefined) throw new Error("give --token or --token-file, not both");
  if (token !== undefined) return token;
  if (tokenFile === undefined) return undefined;
  const text = readFlagFile("--token-file", tokenFile).trim();
  if (text === "") throw new Error(`--token-file ${tokenFile} is empty`);
  return text;
}

function checkServerUrls(text: string): void {
  for (const url of text.split(",")) {
    if (!/^https?:\/\/./.test(url.trim()))
      throw new Error(`--server must be an https:// (or http://) URL, got "${url}"`);
  }
}

/** The server, token and CA the flags name; undefined when neither --server nor --kubeconfig is given. */
export function serverAccessFromFlags(values: ServerFlagValues): ServerAccess | undefined {
  const fromKubeconfig =
    values.kubeconfig === undefined ? undefined : loadClusterAccess({ kubeconfig: values.kubeconfig, env: {} });
  const serverUrl = values.server ?? fromKubeconfig?.server;
  if (serverUrl === undefined) {
    if (values["certificate-authority"] !== undefined) throw new Error("--certificate-authority needs --server");
    return undefined;
  }
  checkServerUrls(serverUrl);
  const caFile = values["certificate-authority"];
  const caPem = caFile === undefined ? fromKubeconfig?.caPem : readFlagFile("--certificate-authority", caFile);
  if (caPem !== undefined && !caPem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new Error(`--certificate-authority ${caFile ?? values.kubeconfig}: holds no PEM certificate`);
  }
  const token = tokenFromFlags(values) ?? fromKubeconfig?.token;
  return {
    serverUrl,
    ...(token === undefined ? {} : { token }),
    ...(caPem === undefined ? {} : { caPem }),
  };
}

export const serverFlagsUsage = `  --kubeconfig F    the API server, its certificate authority and the token, from the current
                    context of this kubeconfig; the flags below override it
  --server URL,…    the API server, e.g. https://10.0.0.1:8080 (kvol server and kvol up answer
                    HTTPS on their port); with several, comma-separated, the next is used when
                    one cannot be reached
  --certificate-authority F
                    the CA file the server's certificate must chain to (kvol server's DATA/ca.crt;
                    default: the kubeconfig's, else the system's)
  --token T         the bearer token
  --token-file F    a file holding the bearer token`;
