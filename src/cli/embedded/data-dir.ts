/**
 * The data directory of `kvol up` and `kvol server` (`~/.kvol` unless `--data-dir` or
 * KVOL_DATA_DIR says otherwise):
 *
 *   kvol.db           the SQLite store: every API object, kept across restarts and crashes
 *   tokens.csv        bearer tokens in kube-apiserver's static token file format
 *   kubeconfig        the administrator's kubeconfig, rewritten at each start (the port may change)
 *   ca.crt            the API server's self-signed certificate, made at each start (in the kubeconfig too)
 *   kvol.log          the log of the control plane and the simulated nodes
 *   kvol.pid          the process using the directory, so a second one does not start on it
 *   node-tokens/N     the token of node N for `kvol node --token-file` (`kvol server --node-tokens`)
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { formatTokenLine, parseTokenFile, type TokenEntry } from "../../apiserver/auth/token-file.ts";
import { adminGroup, adminUserName, nodeUser } from "../../apiserver/auth/user-info.ts";
import {
  caFileName,
  dataDirEnvironmentVariable,
  defaultDataDirName,
  kubeconfigFileName,
  nodeTokenDirName,
  pidFileName,
  tokenBytes,
  tokenFileName,
} from "./constants.ts";

/** Owner-only: these files hold credentials. */
export const privateFileMode = 0o600;
const privateDirMode = 0o700;

export function defaultDataDir(environment: NodeJS.ProcessEnv = process.env): string {
  return environment[dataDirEnvironmentVariable] || join(homedir(), defaultDataDirName);
}

export function newToken(): string {
  return randomBytes(tokenBytes).toString("base64url");
}

export class DataDir {
  readonly path: string;

  constructor(path: string) {
    this.path = resolve(path);
  }

  file(name: string): string {
    return join(this.path, name);
  }

  get tokenFile(): string {
    return this.file(tokenFileName);
  }

  get kubeconfigFile(): string {
    return this.file(kubeconfigFileName);
  }

  create(): void {
    mkdirSync(this.path, { recursive: true, mode: privateDirMode });
  }

  /** The token file's entries; an empty list when there is no file yet. */
  tokens(): TokenEntry[] {
    if (!existsSync(this.tokenFile)) return [];
    return parseTokenFile(readFileSync(this.tokenFile, "utf8"), this.tokenFile);
  }

  /** The administrator's token, created on the first start. */
  ensureAdminToken(): string {
    const existing = this.tokens().find((entry) => entry.user.groups.includes(adminGroup));
    if (existing !== undefined) return existing.token;
    const entry = { token: newToken(), user: { name: adminUserName, uid: adminUserName, groups: [adminGroup] } };
    this.appendToken(entry);
    return entry.token;
  }

  /** Node `nodeName`'s token (created when missing), also written to `node-tokens/<name>`; returns that file. */
  ensureNodeToken(nodeName: string): string {
    const user = nodeUser(nodeName);
    const existing = this.tokens().find((entry) => entry.user.name === user.name);
    const token = existing?.token ?? newToken();
    if (existing === undefined) this.appendToken({ token, user });
    mkdirSync(this.file(nodeTokenDirName), { recursive: true, mode: privateDirMode });
    const path = this.nodeTokenFile(nodeName);
    writeFileSync(path, `${token}\n`, { mode: privateFileMode });
    return path;
  }

  nodeTokenFile(nodeName: string): string {
    return join(this.file(nodeTokenDirName), nodeName);
  }

  private appendToken(entry: TokenEntry): void {
    appendFileSync(this.tokenFile, `${formatTokenLine(entry)}\n`, { mode: privateFileMode });
  }

  /** Writes the administrator's kubeconfig for the server at `url` (HTTPS, trusting `caPem`); returns its path. */
  writeKubeconfig(url: string, token: string, caPem: string): string {
    writeFileSync(this.file(caFileName), caPem);
    writeFileSync(this.kubeconfigFile, kubeconfigText(url, token, caPem), { mode: privateFileMode });
    return this.kubeconfigFile;
  }

  /**
   * Claims the directory for this process; throws when another live process holds it. A pid file
   * left by a process that died (SIGKILL, a crash) is taken over.
   */
  lock(): void {
    const pidFile = this.file(pidFileName);
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new Error(
          `the data directory ${this.path} is in use by kvol process ${pid}; stop it first or choose another --data-dir`,
        );
      }
    }
    writeFileSync(pidFile, `${process.pid}\n`);
  }

  unlock(): void {
    rmSync(this.file(pidFileName), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; ESRCH: it is gone.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export const kubeconfigClusterName = "kvol";

export function kubeconfigText(url: string, token: string, caPem: string): string {
  const cluster = { server: url, "certificate-authority-data": Buffer.from(caPem).toString("base64") };
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: kubeconfigClusterName, cluster }],
    users: [{ name: adminUserName, user: { token } }],
    contexts: [{ name: kubeconfigClusterName, context: { cluster: kubeconfigClusterName, user: adminUserName } }],
    "current-context": kubeconfigClusterName,
    preferences: {},
  });
}

export interface KubeconfigAccess {
  server: string;
  token: string;
}

/**
 * The plain-HTTP address of the same server: kvol's API server answers HTTP and HTTPS on one
 * port, and kvol's own clients use HTTP there (the kubeconfig names HTTPS for kubectl).
 */
export function plainHttpUrl(server: string): string {
  return server.replace(/^https:/, "http:");
}

interface KubeconfigShape {
  clusters?: { cluster?: { server?: unknown } }[];
  users?: { user?: { token?: unknown } }[];
}

/** The server and token of a kubeconfig `kvol up` wrote (for `kvol fault`). */
export function readKubeconfig(path: string): KubeconfigAccess {
  if (!existsSync(path)) {
    throw new Error(`no kubeconfig at ${path}: start the cluster with \`kvol up\` first, or pass --data-dir`);
  }
  const config = parse(readFileSync(path, "utf8")) as KubeconfigShape | null;
  const server = config?.clusters?.[0]?.cluster?.server;
  const token = config?.users?.[0]?.user?.token;
  if (typeof server !== "string" || typeof token !== "string") {
    throw new Error(`the kubeconfig ${path} names no server or no token; start the cluster again to rewrite it`);
  }
  return { server, token };
}
