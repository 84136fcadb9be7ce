/**
 * `kvol up --etcd`: a local single-member etcd for users who want etcd on one machine — the
 * machine's `etcd` binary (Debian: the etcd-server package), its data in DATA/etcd, its client and
 * peer ports on the loopback address, chosen free at the first start and kept in DATA/etcd-ports
 * so a restart finds the member where it was. It stops with kvol.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import type { Clock } from "../../runtime/clock.ts";

/** etcd's data directory and the ports file, in kvol's data directory. */
const localEtcdDirName = "etcd";
const localEtcdPortsFileName = "etcd-ports";
/** How long a starting etcd may take before kvol gives up on it. */
const localEtcdStartTimeoutMs = 60_000;
/** How long a stopping etcd (SIGTERM) may take before it is killed. */
const localEtcdStopTimeoutMs = 10_000;
/** The line etcd 3.4 and 3.5 log once clients may connect. */
const readyLine = "ready to serve client requests";

const missingEtcdMessage =
  "--etcd needs the etcd binary on PATH, and none was found; install it (Debian and Ubuntu: apt-get install etcd-server) or give --etcd-servers of an etcd you run";

/** The `etcd` binary on `path` (a PATH value), or undefined. */
export function findEtcdBinary(path = process.env.PATH ?? ""): string | undefined {
  for (const directory of path.split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, "etcd");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "EACCES" && code !== "ENOTDIR") throw error;
    }
  }
  return undefined;
}

/** A loopback port that was free a moment ago (bound to port 0, then released). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

interface Ports {
  client: number;
  peer: number;
}

async function portsFor(dataDir: string): Promise<Ports> {
  const file = join(dataDir, localEtcdPortsFileName);
  if (existsSync(file)) {
    const [client, peer] = readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
    if (Number.isInteger(client) && Number.isInteger(peer)) return { client: client as number, peer: peer as number };
  }
  const ports = { client: await freeLoopbackPort(), peer: await freeLoopbackPort() };
  writeFileSync(file, `${ports.client} ${ports.peer}\n`);
  return ports;
}

export class LocalEtcd {
  readonly clientUrl: string;
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private readonly clock: Clock;

  private constructor(child: ChildProcess, clientUrl: string, clock: Clock) {
    this.child = child;
    this.clientUrl = clientUrl;
    this.clock = clock;
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
  }

  /** Starts etcd on DATA/etcd and resolves once it serves clients; throws with its output if it cannot. */
  static async start(dataDir: string, clock: Clock, binary = findEtcdBinary()): Promise<LocalEtcd> {
    if (binary === undefined) throw new Error(missingEtcdMessage);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const ports = await portsFor(dataDir);
    const clientUrl = `http://127.0.0.1:${ports.client}`;
    const peerUrl = `http://127.0.0.1:${ports.peer}`;
    const child = spawn(
      binary,
      [
        "--name=kvol",
        `--data-dir=${join(dataDir, localEtcdDirName)}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=kvol=${peerUrl}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    const etcd = new LocalEtcd(child, clientUrl, clock);
    try {
      await etcd.ready();
    } catch (error) {
      await etcd.stop();
      throw error;
    }
    return etcd;
  }

  private ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      let output = "";
      const timer = this.clock.setTimer(localEtcdStartTimeoutMs, () =>
        finish(
          new Error(`etcd did not serve clients within ${localEtcdStartTimeoutMs / 1_000} s:\n${output.slice(-2_000)}`),
        ),
      );
      const onData = (chunk: Buffer): void => {
        output += chunk.toString("utf8");
        if (output.includes(readyLine)) finish(undefined);
      };
      const onExit = (code: number | null): void =>
        finish(new Error(`etcd exited (code ${code}) before serving clients:\n${output.slice(-2_000)}`));
      const finish = (error: Error | undefined): void => {
        timer.cancel();
        this.child.stderr?.off("data", onData);
        this.child.off("exit", onExit);
        // Keep draining its log so etcd never blocks on a full pipe.
        this.child.stderr?.resume();
        if (error === undefined) resolve();
        else reject(error);
      };
      this.child.stderr?.on("data", onData);
      this.child.once("exit", onExit);
      this.child.once("error", (error) => finish(error));
    });
  }

  /** SIGTERM, then SIGKILL if etcd has not exited in time. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = this.clock.setTimer(localEtcdStopTimeoutMs, () => this.child.kill("SIGKILL"));
    await this.exited;
    timer.cancel();
  }
}
