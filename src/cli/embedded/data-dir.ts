/**
 * The data directory of `kvol up` and `kvol server` (`~/.kvol` unless `--data-dir` or
 * KVOL_DATA_DIR says otherwise):
 *
 *   kvol.db           the SQLite store: every API object, kept across restarts and crashes
 *   tokens.csv        bearer tokens in kube-apiserver's static token file format
 *   kubeconfig        the administrator's kubeconfig, rewritten at each start (the port may change)
 *   ca.crt, ca.key    the certificate authority of the API server's serving certificate, made once
 *                     (ca.crt is in the kubeconfig too; clients such as `kvol node` trust it)
 *   kvol.log          the log of the control plane and the simulated nodes
 *   kvol.pid          the process using the directory, so a second one does not start on it
 *   clock             the cluster clock's time (epoch ms) at the last stop, ahead of the wall clock after a --speed run
 *   node-tokens/N     the token of node N for `kvol node --token-file` (`kvol server --node-tokens`)
 */
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { stringify } from "yaml";
import { formatTokenLine, parseTokenFile, type TokenEntry } from "../../apiserver/auth/token-file.ts";
import { adminGroup, adminUserName, nodeUser } from "../../apiserver/auth/user-info.ts";
import {
  caFileName,
  caKeyFileName,
  clockFileName,
  dataDirEnvironmentVariable,
  defaultDataDirName,
  kubeconfigFileName,
  logFileName,
  nodeTokenDirName,
  pidFileName,
  storeFileName,
  tokenBytes,
  tokenFileName,
} from "./constants.ts";

/** Owner-only: these files hold credentials (tokens, the kubeconfig) and Secrets (the store, the log). */
export const privateFileMode = 0o600;
const privateDirMode = 0o700;

/** The files kvol keeps in the data directory (SQLite's companions of the store included). */
const dataDirFileNames = [
  storeFileName,
  `${storeFileName}-wal`,
  `${storeFileName}-shm`,
  `${storeFileName}-journal`,
  tokenFileName,
  kubeconfigFileName,
  caFileName,
  caKeyFileName,
  logFileName,
  pidFileName,
  clockFileName,
];

/** Writes `text` readable by its owner only, also when the file existed with a wider mode. */
function writePrivateFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: privateFileMode });
  chmodSync(path, privateFileMode);
}

export function defaultDataDir(environment: NodeJS.ProcessEnv = process.env): string {
  return environment[dataDirEnvironmentVariable] || join(homedir(), defaultDataDirName);
}

function newToken(): string {
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

  /**
   * Creates the directory, or takes a pre-created one: either way it ends owner-only (0700), and
   * so does every file of kvol's already in it (0600) — files of an older kvol, a store copied in.
   * Other files (the directory may be one the user keeps other things in) are left alone.
   */
  create(): void {
    mkdirSync(this.path, { recursive: true, mode: privateDirMode });
    chmodSync(this.path, privateDirMode);
    for (const name of dataDirFileNames) {
      const path = this.file(name);
      if (existsSync(path) && statSync(path).isFile()) chmodSync(path, privateFileMode);
    }
    const nodeTokens = this.file(nodeTokenDirName);
    if (existsSync(nodeTokens)) {
      chmodSync(nodeTokens, privateDirMode);
      for (const entry of readdirSync(nodeTokens, { withFileTypes: true })) {
        if (entry.isFile()) chmodSync(join(nodeTokens, entry.name), privateFileMode);
      }
    }
  }

  /**
   * The path of file `name`, created empty and owner-only when missing, so a program that creates
   * files with the umask's mode (SQLite: the store, then its -wal and -shm with the store's mode)
   * finds it private already.
   */
  privateFile(name: string): string {
    const path = this.file(name);
    closeSync(openSync(path, "a", privateFileMode));
    chmodSync(path, privateFileMode);
    return path;
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
    writePrivateFile(path, `${token}\n`);
    return path;
  }

  nodeTokenFile(nodeName: string): string {
    return join(this.file(nodeTokenDirName), nodeName);
  }

  private appendToken(entry: TokenEntry): void {
    appendFileSync(this.tokenFile, `${formatTokenLine(entry)}\n`, { mode: privateFileMode });
  }

  /** The certificate authority clients trust: `ca.crt`. */
  get caFile(): string {
    return this.file(caFileName);
  }

  /** Keeps the API server's certificate authority: `ca.crt` and its key `ca.key`. */
  writeCa(ca: { certificatePem: string; privateKeyPem: string }): void {
    writePrivateFile(this.file(caKeyFileName), ca.privateKeyPem);
    writePrivateFile(this.caFile, ca.certificatePem);
  }

  /** Writes the administrator's kubeconfig for the server at `url` (HTTPS, trusting `caPem`); returns its path. */
  writeKubeconfig(url: string, token: string, caPem: string): string {
    writePrivateFile(this.kubeconfigFile, kubeconfigText(url, token, caPem));
    return this.kubeconfigFile;
  }

  /**
   * Claims the directory for this process; throws when another live process holds it. A pid file
   * left by a process that died (SIGKILL, a crash) is taken over, also while that process is still
   * a zombie its parent has not reaped (right after `kill -9`), and one whose pid now belongs to a
   * process that started after the file was written (the pid reused after a reboot).
   */
  lock(): void {
    const pidFile = this.file(pidFileName);
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, "utf8").trim());
      const writtenMs = statSync(pidFile).mtimeMs;
      if (
        Number.isSafeInteger(pid) &&
        pid > 0 &&
        pid !== process.pid &&
        isAlive(pid) &&
        !startedAfter(pid, writtenMs)
      ) {
        throw new Error(
          `the data directory ${this.path} is in use by kvol process ${pid}; stop it first or choose another --data-dir`,
        );
      }
    }
    writePrivateFile(pidFile, `${process.pid}\n`);
  }

  /**
   * The cluster clock's time at the last clean stop, when a file holds one: a run at `--speed`
   * leaves it ahead of the wall clock, and the next start resumes from it.
   */
  savedClockMs(): number | undefined {
    const path = this.file(clockFileName);
    if (!existsSync(path)) return undefined;
    const value = Number(readFileSync(path, "utf8").trim());
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }

  saveClock(nowMs: number): void {
    writePrivateFile(this.file(clockFileName), `${nowMs}\n`);
  }

  unlock(): void {
    rmSync(this.file(pidFileName), { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; ESRCH: it is gone.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return !isZombie(pid);
}

/** Linux's USER_HZ: /proc/PID/stat counts a process's start time in these ticks since boot. */
const procTicksPerSecond = 100;
/** The start time read from /proc is exact to the second of the boot time: allow for that. */
const startTimeSlackMs = 2_000;

/**
 * Whether process `pid` started after `writtenMs` (epoch ms): then it is not the process that
 * wrote a pid file at `writtenMs`, only one that got the same pid later. False when /proc cannot tell.
 */
function startedAfter(pid: number, writtenMs: number): boolean {
  const startMs = processStartMs(pid);
  return startMs !== undefined && startMs > writtenMs + startTimeSlackMs;
}

/** When process `pid` started (epoch ms), from /proc/stat's boot time and /proc/PID/stat's field 22. */
function processStartMs(pid: number): number | undefined {
  try {
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): state is field 3, starttime field 22.
    const startTicks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    if (!Number.isFinite(bootSeconds) || !Number.isFinite(startTicks)) return undefined;
    return bootSeconds * 1000 + (startTicks / procTicksPerSecond) * 1000;
  } catch (error) {
    // No /proc (not Linux), or the process is gone: nothing to tell.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Whether the process has exited and waits only to be reaped (state Z, or X while being reaped):
 * the state is the field after the command name in /proc/PID/stat, whose name may itself hold
 * spaces and parentheses, hence the last ")". Without /proc (not Linux) a process that answers
 * signals counts as alive.
 */
export function isZombie(pid: number): boolean {
  const statPath = `/proc/${pid}/stat`;
  if (!existsSync(statPath)) return false;
  let stat: string;
  try {
    stat = readFileSync(statPath, "utf8");
  } catch (error) {
    // Gone between the check and the read: it is not alive either.
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state === "Z" || state === "X";
}

const kubeconfigClusterName = "kvol";

function kubeconfigText(url: string, token: string, caPem: string): string {
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
