/**
 * `kvol server`: the control plane alone — API server and every controller, no nodes — with its
 * objects in the data directory's SQLite store. Nodes join from other processes or machines with
 * `kvol node`, each authenticating as `system:node:<name>` with its own token:
 *
 *   kvol server --data-dir D --node-tokens node-a,node-b
 *   kvol node --server https://127.0.0.1:8080 --certificate-authority D/ca.crt --name node-a --token-file D/node-tokens/node-a
 *
 * A token can also be added later as a line of D/tokens.csv (`TOKEN,system:node:NAME,UID,"system:nodes"`);
 * the server reads the file again when it meets a token it does not know.
 */
import { parseArgs } from "node:util";
import { checkEtcdUrlsForTls, type EtcdTlsFiles } from "../api/store/etcd-tls.ts";
import { serverDiskFencer } from "../cmd/real-disk-fencing.ts";
import { fenceAfterUsage } from "../controllers/nodefencing/fence-after.ts";
import { LinuxHost } from "../host/linux/linux-host.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { type CommandIo, exitOk, exitUsage, processIo } from "./command-io.ts";
import { defaultApiPort } from "./embedded/constants.ts";
import { tlsSanUsage } from "./embedded/tls-san-flag.ts";
import { type ClusterArguments, clusterArguments, clusterOptionSpecs, runCluster } from "./up-command.ts";

export const serverUsage = `Usage:
  kvol server [--port P] [--address A] [--data-dir D | --ephemeral] [--etcd-servers URL,…] [--node-tokens N1,N2…]
              [--etcd-cafile F] [--etcd-certfile F --etcd-keyfile F]
              [--csi-controller NAME=unix:///path …]
              [--leader-elect=true|false] [--event-ttl 1h0m0s] [--audit-log-path F]
              [--insecure-http-tokens]
              [--fence-after 15s] [--fence-disks-dir D] [--tls-san NAME,…]

Starts the API server and every controller, without nodes, until Ctrl-C. Nodes join with
\`kvol node\`, each with its own token.

  --port P           the API server's port (default ${defaultApiPort}; 0 picks a free one)
  --address A        the address to listen on (default 127.0.0.1; 0.0.0.0 for other machines)
${tlsSanUsage.replaceAll("\n                  ", "\n                     ")}
  --data-dir D       where the store, tokens, kubeconfig and log live (default $KVOL_DATA_DIR or ~/.kvol)
  --ephemeral        keep the objects in memory only
  --etcd-servers U,… keep the objects in this etcd cluster (client URLs, http://HOST:2379, or
                     https://HOST:2379 for TLS)
  --etcd-cafile F    the CA that signed etcd's serving certificate (PEM; default: the system's CAs)
  --etcd-certfile F  the client certificate to present to etcd (PEM; etcd's --client-cert-auth)
  --etcd-keyfile F   the key of --etcd-certfile (PEM)
  --leader-elect     run each component only while this server holds its Lease in kube-system
                     (kube-controller-manager, kube-scheduler, and each CSI driver's sidecars';
                     default true; --leader-elect=false to disable): of several servers on one
                     etcd exactly one runs each, another takes over within about 15 s of its
                     death; a leader that cannot renew for 10 s exits
  --node-tokens N,…  make sure nodes N… have tokens; each is written to D/node-tokens/<name>
  --csi-controller NAME=unix:///path/controller.sock
                     run the provisioner and attacher for CSI driver NAME against its controller
                     socket (a driver running outside kvol); repeat for several drivers
  --event-ttl D      how long an Event is kept after its last write, as a Go duration (default 1h0m0s)
  --audit-log-path F append every write to the API (refused ones too) to file F, one
                     audit.k8s.io/v1 Event per line (level Metadata)
  --insecure-http-tokens
                     accept bearer tokens over plain HTTP too (by default only over HTTPS: nodes
                     join with --server https://… --certificate-authority D/ca.crt)
${fenceAfterUsage}
  --fence-disks-dir D
                     the disks directory (--state-dir) of a disk.csi.kvol.io controller on this
                     machine started with --fenceable (its nodes with kvol node --fenceable-disks):
                     the node-fencing controller fences those disks' loop devices; without
                     it, a silent node holding one is refused fencing (docs/fencing.md)
  --log-level L      debug, info (default), warn or error
  --verbose          print the log on stderr as well as in D/kvol.log

A node's token is a line of D/tokens.csv, kube-apiserver's token file format:
  TOKEN,system:node:NAME,UID,"system:nodes"
Lines added while the server runs take effect at once.
`;

interface ServerArguments extends ClusterArguments {
  nodeTokenNames: string[];
}

const nodeNamePattern = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/** kube-controller-manager's `--leader-elect[=true|false]`, which parseArgs cannot read; the rest of argv. */
function leaderElectOption(argv: readonly string[]): { leaderElect: boolean; rest: string[] } {
  let leaderElect = true;
  const rest: string[] = [];
  for (const arg of argv) {
    const match = /^--leader-elect(?:=(.*))?$/.exec(arg);
    if (match === null) {
      rest.push(arg);
      continue;
    }
    const value = match[1] ?? "true";
    if (value !== "true" && value !== "false") throw new Error(`--leader-elect must be true or false, got "${value}"`);
    leaderElect = value === "true";
  }
  return { leaderElect, rest };
}

export function parseServerArguments(argv: readonly string[]): ServerArguments | { help: true } {
  const { leaderElect, rest } = leaderElectOption(argv);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      ...clusterOptionSpecs,
      "node-tokens": { type: "string" },
      speed: { type: "string" },
      "etcd-servers": { type: "string" },
      "etcd-cafile": { type: "string" },
      "etcd-certfile": { type: "string" },
      "etcd-keyfile": { type: "string" },
      "fence-disks-dir": { type: "string" },
    },
  });
  if (values.help) return { help: true };
  if (values.speed !== undefined) {
    throw new Error(
      "--speed is for kvol up: the nodes of kvol server are kvol node processes on the wall clock, and other processes cannot be sped up",
    );
  }
  if (positionals.length > 0) throw new Error(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const nodeTokenNames = (values["node-tokens"] ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  for (const name of nodeTokenNames) {
    if (!nodeNamePattern.test(name)) throw new Error(`--node-tokens: "${name}" is not a valid node name`);
  }
  const etcdServers = etcdServerUrls(values["etcd-servers"], values.ephemeral ?? false);
  const etcdTls = etcdTlsFiles(values, etcdServers);
  const disksDir = values["fence-disks-dir"];
  if (disksDir !== undefined && !disksDir.startsWith("/")) {
    throw new Error(`--fence-disks-dir must be an absolute path, got ${JSON.stringify(disksDir)}`);
  }
  return {
    ...clusterArguments(values),
    nodeCount: 0,
    speed: 1,
    nodeTokenNames,
    leaderElect,
    ...(etcdServers === undefined ? {} : { etcdServers }),
    ...(etcdTls === undefined ? {} : { etcdTls }),
    ...(disksDir === undefined
      ? {}
      : { fencers: () => [serverDiskFencer(new LinuxHost({ nodeName: "kvol-server" }), disksDir)] }),
  };
}

/** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile` (kube-apiserver's): only with https:// `--etcd-servers`. */
function etcdTlsFiles(
  values: { "etcd-cafile"?: string; "etcd-certfile"?: string; "etcd-keyfile"?: string },
  etcdServers: readonly string[] | undefined,
): EtcdTlsFiles | undefined {
  const files: EtcdTlsFiles = {
    ...(values["etcd-cafile"] === undefined ? {} : { caFile: values["etcd-cafile"] }),
    ...(values["etcd-certfile"] === undefined ? {} : { certFile: values["etcd-certfile"] }),
    ...(values["etcd-keyfile"] === undefined ? {} : { keyFile: values["etcd-keyfile"] }),
  };
  if (etcdServers === undefined) {
    const given = Object.keys(files).length > 0;
    if (given) throw new Error("--etcd-cafile, --etcd-certfile and --etcd-keyfile are for --etcd-servers");
    return undefined;
  }
  checkEtcdUrlsForTls(etcdServers, files);
  return Object.keys(files).length > 0 ? files : undefined;
}

/** `--etcd-servers`: comma-separated http(s) client URLs, as kube-apiserver takes them. */
function etcdServerUrls(text: string | undefined, ephemeral: boolean): string[] | undefined {
  if (text === undefined) return undefined;
  if (ephemeral) throw new Error("--etcd-servers and --ephemeral cannot be combined: etcd keeps the objects");
  const urls = text
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url !== "");
  if (urls.length === 0) throw new Error("--etcd-servers needs at least one URL, like http://127.0.0.1:2379");
  for (const url of urls) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new Error(`--etcd-servers: "${url}" is not an http:// or https:// URL`);
    }
  }
  return urls;
}

export async function runServerCommand(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  let parsed: ReturnType<typeof parseServerArguments>;
  try {
    parsed = parseServerArguments(argv);
  } catch (error) {
    io.stderr(`kvol server: ${errorMessage(error)}\n\n${serverUsage}`);
    return exitUsage;
  }
  if ("help" in parsed) {
    io.stdout(serverUsage);
    return exitOk;
  }
  const { nodeTokenNames, ...cluster } = parsed;
  return runCluster("server", cluster, io, (embedded) => {
    const lines = nodeTokenNames.map((name) => {
      const tokenFile = embedded.dataDir.ensureNodeToken(name);
      return `node token: ${name} ${tokenFile}\n`;
    });
    const example = nodeTokenNames[0] ?? "NAME";
    const tokenFile = nodeTokenNames[0] === undefined ? "FILE" : embedded.dataDir.nodeTokenFile(example);
    if (embedded.leaderIdentity !== undefined) {
      lines.push(
        `leader election: candidate ${embedded.leaderIdentity} for the Leases kube-system/kube-controller-manager, kube-system/kube-scheduler and the CSI sidecars'\n`,
      );
    }
    const trust = `--certificate-authority ${embedded.dataDir.caFile}`;
    return `${lines.join("")}Start a node:\n  kvol node --server ${embedded.kubeconfigUrl} ${trust} --name ${example} --token-file ${tokenFile}\n`;
  });
}
