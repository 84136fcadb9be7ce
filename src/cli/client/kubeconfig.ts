/**
 * Finds the API server and the credentials a client command uses, as kubectl does: `--kubeconfig`,
 * else the first file of $KUBECONFIG, else the kubeconfig `kvol up` writes into its data directory.
 * The current context (or `--context`) names the cluster, the user and the default namespace.
 */
import { existsSync, readFileSync } from "node:fs";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import { kubeconfigFileName } from "../embedded/constants.ts";
import { defaultDataDir } from "../embedded/data-dir.ts";

export interface ClusterAccess {
  /** `http://host:port` without a trailing slash. */
  server: string;
  token?: string;
  /** The certificate authority an https server's certificate must chain to (PEM). */
  caPem?: string;
  /** Accept any certificate (the kubeconfig's insecure-skip-tls-verify). */
  insecureSkipTlsVerify?: boolean;
  /** The context's namespace, `default` when it names none. */
  namespace: string;
  /** The file the access was read from, for messages. */
  source: string;
}

export interface KubeconfigChoice {
  kubeconfig?: string;
  context?: string;
  env: NodeJS.ProcessEnv;
}

interface Named<T> {
  name?: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}

interface KubeconfigFile {
  clusters?: Named<{
    server?: unknown;
    "certificate-authority-data"?: unknown;
    "certificate-authority"?: unknown;
    "insecure-skip-tls-verify"?: unknown;
  }>[];
  users?: Named<{ token?: unknown; tokenFile?: unknown }>[];
  contexts?: Named<{ cluster?: unknown; user?: unknown; namespace?: unknown }>[];
  "current-context"?: unknown;
}

export class KubeconfigError extends Error {}

/** The kubeconfig file to read: the flag, then $KUBECONFIG's first existing file, then `kvol up`'s. */
export function kubeconfigPath(choice: KubeconfigChoice): string {
  if (choice.kubeconfig) return resolve(choice.kubeconfig);
  const fromEnv = (choice.env.KUBECONFIG ?? "").split(delimiter).filter((p) => p !== "");
  const existing = fromEnv.find((p) => existsSync(p));
  if (existing !== undefined) return resolve(existing);
  if (fromEnv[0] !== undefined) return resolve(fromEnv[0]);
  return join(defaultDataDir(choice.env), kubeconfigFileName);
}

function entryNamed<T>(
  list: Named<T>[] | undefined,
  name: string,
  part: "cluster" | "user" | "context",
): T | undefined {
  return list?.find((entry) => entry.name === name)?.[part];
}

function readToken(user: { token?: unknown; tokenFile?: unknown } | undefined, path: string): string | undefined {
  if (typeof user?.token === "string" && user.token !== "") return user.token;
  if (typeof user?.tokenFile !== "string") return undefined;
  return readFileSync(relativeTo(path, user.tokenFile), "utf8").trim();
}

function relativeTo(path: string, file: string): string {
  return isAbsolute(file) ? file : join(dirname(path), file);
}

function readCertificateAuthority(
  cluster: NonNullable<KubeconfigFile["clusters"]>[number]["cluster"],
  path: string,
): string | undefined {
  const data = cluster?.["certificate-authority-data"];
  if (typeof data === "string" && data !== "") return Buffer.from(data, "base64").toString("utf8");
  const file = cluster?.["certificate-authority"];
  return typeof file === "string" && file !== "" ? readFileSync(relativeTo(path, file), "utf8") : undefined;
}

function parseFile(path: string): KubeconfigFile {
  if (!existsSync(path)) {
    throw new KubeconfigError(
      `no kubeconfig at ${path}: start a cluster with \`kvol up\`, or pass --kubeconfig or set KUBECONFIG`,
    );
  }
  const parsed: unknown = parse(readFileSync(path, "utf8"));
  if (parsed === null || typeof parsed !== "object") throw new KubeconfigError(`the kubeconfig ${path} is empty`);
  return parsed as KubeconfigFile;
}

/** The server, token and namespace of the chosen context. */
export function loadClusterAccess(choice: KubeconfigChoice): ClusterAccess {
  const path = kubeconfigPath(choice);
  const config = parseFile(path);
  const contextName = choice.context ?? config["current-context"];
  if (typeof contextName !== "string" || contextName === "") {
    throw new KubeconfigError(`the kubeconfig ${path} has no current-context; pass --context`);
  }
  const context = entryNamed(config.contexts, contextName, "context");
  if (context === undefined) throw new KubeconfigError(`the kubeconfig ${path} has no context "${contextName}"`);
  const cluster = entryNamed(config.clusters, String(context.cluster ?? ""), "cluster");
  if (typeof cluster?.server !== "string" || cluster.server === "") {
    throw new KubeconfigError(`the context "${contextName}" of ${path} names no cluster with a server address`);
  }
  const token = readToken(entryNamed(config.users, String(context.user ?? ""), "user"), path);
  const namespace = typeof context.namespace === "string" && context.namespace !== "" ? context.namespace : "default";
  const caPem = readCertificateAuthority(cluster, path);
  return {
    server: cluster.server.replace(/\/+$/, ""),
    ...(token === undefined ? {} : { token }),
    ...(caPem === undefined ? {} : { caPem }),
    ...(cluster["insecure-skip-tls-verify"] === true ? { insecureSkipTlsVerify: true } : {}),
    namespace,
    source: path,
  };
}
