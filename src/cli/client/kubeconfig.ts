/**
 * How every client command (`get`, `describe`, `apply`, `delete`, `fault`, `speed`, …) finds its
 * cluster, as kubectl does:
 *
 *   1. `--kubeconfig FILE`: that file alone (it must exist);
 *   2. else $KUBECONFIG, a list of files separated by `:` (`;` on Windows) merged as kubectl merges
 *      them: files that do not exist are skipped, and the first file to set a value wins — each
 *      cluster, user and context by name, and `current-context`;
 *   3. else `~/.kube/config`, kubectl's default, when it exists;
 *   4. else the kubeconfig `kvol up` writes in its data directory (`~/.kvol/kubeconfig`, or under
 *      $KVOL_DATA_DIR), so a first `kvol up` works with no setting at all.
 *
 * The current context (or `--context`) names the cluster, the user and the default namespace.
 * Relative file names inside a kubeconfig (certificate-authority, tokenFile) are read relative to
 * the file that holds them, as kubectl reads them.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import { kubeconfigFileName } from "../embedded/constants.ts";
import { defaultDataDir } from "../embedded/data-dir.ts";

export interface ClusterAccess {
  /** `http(s)://host:port` without a trailing slash. */
  server: string;
  token?: string;
  /** The certificate authority an https server's certificate must chain to (PEM). */
  caPem?: string;
  /** Accept any certificate (the kubeconfig's insecure-skip-tls-verify). */
  insecureSkipTlsVerify?: boolean;
  /** The context's namespace, `default` when it names none. */
  namespace: string;
  /** The context used. */
  context: string;
  /** The file(s) the access was read from, for messages. */
  source: string;
}

interface KubeconfigChoice {
  kubeconfig?: string;
  context?: string;
  env: NodeJS.ProcessEnv;
}

interface ClusterEntry {
  server?: unknown;
  "certificate-authority-data"?: unknown;
  "certificate-authority"?: unknown;
  "insecure-skip-tls-verify"?: unknown;
}
interface UserEntry {
  token?: unknown;
  tokenFile?: unknown;
}
interface ContextEntry {
  cluster?: unknown;
  user?: unknown;
  namespace?: unknown;
}

interface KubeconfigFile {
  clusters?: { name?: unknown; cluster?: ClusterEntry }[];
  users?: { name?: unknown; user?: UserEntry }[];
  contexts?: { name?: unknown; context?: ContextEntry }[];
  "current-context"?: unknown;
}

/** An entry of the merged configuration and the file it came from (for its relative paths). */
interface FromFile<T> {
  value: T;
  file: string;
}

/** The kubeconfig files merged, first definition of each name winning. */
interface MergedKubeconfig {
  files: string[];
  clusters: Map<string, FromFile<ClusterEntry>>;
  users: Map<string, FromFile<UserEntry>>;
  contexts: Map<string, FromFile<ContextEntry>>;
  currentContext: string | undefined;
}

export class KubeconfigError extends Error {}

/** kubectl's default kubeconfig, `~/.kube/config` ($HOME as kubectl reads it). */
function kubectlDefaultKubeconfig(env: NodeJS.ProcessEnv): string {
  return join(env.HOME || homedir(), ".kube", "config");
}

/** The kubeconfig `kvol up` writes in its default data directory. */
function kvolDefaultKubeconfig(env: NodeJS.ProcessEnv): string {
  return join(defaultDataDir(env), kubeconfigFileName);
}

/**
 * The files to read, in precedence order: the flag alone, else $KUBECONFIG's list, else kubectl's
 * default when it exists, else kvol's.
 */
export function kubeconfigFiles(choice: KubeconfigChoice): string[] {
  if (choice.kubeconfig) return [resolve(choice.kubeconfig)];
  const fromEnv = (choice.env.KUBECONFIG ?? "").split(delimiter).filter((path) => path !== "");
  if (fromEnv.length > 0) return [...new Set(fromEnv.map((path) => resolve(path)))];
  const kubectlDefault = kubectlDefaultKubeconfig(choice.env);
  return [existsSync(kubectlDefault) ? kubectlDefault : kvolDefaultKubeconfig(choice.env)];
}

function parseFile(path: string): KubeconfigFile {
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new KubeconfigError(`cannot read the kubeconfig ${path}: ${(error as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new KubeconfigError(`the kubeconfig ${path} is not a kubeconfig (a YAML mapping)`);
  }
  return parsed as KubeconfigFile;
}

function addFirst<T>(
  into: Map<string, FromFile<T>>,
  list: { name?: unknown }[] | undefined,
  part: (entry: { name?: unknown }) => T | undefined,
  file: string,
): void {
  for (const entry of Array.isArray(list) ? list : []) {
    const value = part(entry);
    if (typeof entry.name !== "string" || value === undefined || into.has(entry.name)) continue;
    into.set(entry.name, { value, file });
  }
}

/** Reads and merges the chosen files; throws a KubeconfigError saying what to do when none exists. */
function loadKubeconfig(choice: KubeconfigChoice): MergedKubeconfig {
  const candidates = kubeconfigFiles(choice);
  const files = candidates.filter((path) => existsSync(path));
  if (files.length === 0) {
    const tried = candidates.join(", ");
    throw new KubeconfigError(
      `no kubeconfig at ${tried}: start a cluster with \`kvol up\`, or pass --kubeconfig or set KUBECONFIG`,
    );
  }
  const merged: MergedKubeconfig = {
    files,
    clusters: new Map(),
    users: new Map(),
    contexts: new Map(),
    currentContext: undefined,
  };
  for (const file of files) {
    const config = parseFile(file);
    addFirst(merged.clusters, config.clusters, (entry) => (entry as { cluster?: ClusterEntry }).cluster, file);
    addFirst(merged.users, config.users, (entry) => (entry as { user?: UserEntry }).user, file);
    addFirst(merged.contexts, config.contexts, (entry) => (entry as { context?: ContextEntry }).context, file);
    const current = config["current-context"];
    if (merged.currentContext === undefined && typeof current === "string" && current !== "") {
      merged.currentContext = current;
    }
  }
  return merged;
}

function relativeTo(path: string, file: string): string {
  return isAbsolute(file) ? file : join(dirname(path), file);
}

function readToken(user: FromFile<UserEntry> | undefined): string | undefined {
  const entry = user?.value;
  if (user === undefined || entry === undefined) return undefined;
  if (typeof entry.token === "string" && entry.token !== "") return entry.token;
  if (typeof entry.tokenFile !== "string") return undefined;
  return readFileSync(relativeTo(user.file, entry.tokenFile), "utf8").trim();
}

function readCertificateAuthority(cluster: FromFile<ClusterEntry>): string | undefined {
  const data = cluster.value["certificate-authority-data"];
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64").toString("utf8");
  const file = cluster.value["certificate-authority"];
  return typeof file === "string" && file !== "" ? readFileSync(relativeTo(cluster.file, file), "utf8") : undefined;
}

/** The server, credentials and namespace of the chosen context. */
export function loadClusterAccess(choice: KubeconfigChoice): ClusterAccess {
  const config = loadKubeconfig(choice);
  const source = config.files.join(delimiter);
  const contextName = choice.context ?? config.currentContext;
  if (contextName === undefined || contextName === "") {
    throw new KubeconfigError(`the kubeconfig ${source} has no current-context; pass --context`);
  }
  const context = config.contexts.get(contextName)?.value;
  if (context === undefined) {
    const known = [...config.contexts.keys()].join(", ") || "none";
    throw new KubeconfigError(`the kubeconfig ${source} has no context "${contextName}" (contexts: ${known})`);
  }
  const cluster = config.clusters.get(String(context.cluster ?? ""));
  if (cluster === undefined || typeof cluster.value.server !== "string" || cluster.value.server === "") {
    throw new KubeconfigError(`the context "${contextName}" of ${source} names no cluster with a server address`);
  }
  const token = readToken(config.users.get(String(context.user ?? "")));
  const namespace = typeof context.namespace === "string" && context.namespace !== "" ? context.namespace : "default";
  const caPem = readCertificateAuthority(cluster);
  return {
    server: cluster.value.server.replace(/\/+$/, ""),
    ...(token === undefined ? {} : { token }),
    ...(caPem === undefined ? {} : { caPem }),
    ...(cluster.value["insecure-skip-tls-verify"] === true ? { insecureSkipTlsVerify: true } : {}),
    namespace,
    context: contextName,
    source,
  };
}
