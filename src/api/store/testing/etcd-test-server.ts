/**
 * A throwaway single-member etcd for tests: the machine's `etcd` binary on free loopback ports
 * with a data directory from mkdtemp, killed and removed by `stop`. Outside CI a machine without
 * etcd skips these tests (with the reason printed); under `CI=true` the missing binary fails them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

import { freeLoopbackPort } from "../../../cli/embedded/local-etcd.ts";
export interface TestEtcd {
  endpoint: string;
  /** Kills etcd with SIGKILL (a crash, as far as etcd can tell) and removes its data. */
  stop(): Promise<void>;
  /** Kills etcd with SIGKILL and keeps its data. */
  crash(): Promise<void>;
  /** Starts etcd again on the same data and ports (after `crash`). */
  restart(): Promise<void>;
}

/** The etcd binary on PATH, or undefined. */
export function etcdBinary(): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(directory, "etcd");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && (error as NodeJS.ErrnoException).code !== "EACCES")
        throw error;
    }
  }
  return undefined;
}

/**
 * `{ skip: reason }` for `it`/`describe` when etcd is missing outside CI; under CI (or with etcd)
 * an empty object, so a missing binary fails the test instead of skipping it.
 */
export function etcdTestOptions(): { skip?: string } {
  if (etcdBinary() !== undefined || process.env.CI === "true") return {};
  const reason = "etcd is not installed (Debian: apt-get install etcd-server); skipping the etcd tests";
  console.log(reason);
  return { skip: reason };
}

/** A loopback port that was free a moment ago (bound to port 0, then released). */
export const freePort = freeLoopbackPort;

/** Resolves once etcd logs that it serves clients; rejects with its output when it exits first. */
export function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      if (output.includes("ready to serve client requests")) {
        child.stderr?.off("data", onData);
        child.off("exit", onExit);
        child.stderr?.resume();
        resolve();
      }
    };
    const onExit = (code: number | null): void =>
      reject(new Error(`etcd exited (code ${code}) before serving:\n${output}`));
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
    child.on("error", reject);
  });
}

/** etcd serving clients over TLS, asking each for a certificate signed by `trustedCaFile`. */
export interface TestEtcdTls {
  certFile: string;
  keyFile: string;
  trustedCaFile: string;
}

export async function startTestEtcd(options: { tls?: TestEtcdTls } = {}): Promise<TestEtcd> {
  const binary = etcdBinary();
  if (binary === undefined) throw new Error("etcd is not installed (Debian: apt-get install etcd-server)");
  const dataDir = mkdtempSync(join(tmpdir(), "kvol-etcd-"));
  const { tls } = options;
  const clientUrl = `${tls === undefined ? "http" : "https"}://127.0.0.1:${await freePort()}`;
  const peerUrl = `http://127.0.0.1:${await freePort()}`;
  const args = [
    "--name=kvol-test",
    `--data-dir=${dataDir}`,
    `--listen-client-urls=${clientUrl}`,
    `--advertise-client-urls=${clientUrl}`,
    `--listen-peer-urls=${peerUrl}`,
    `--initial-advertise-peer-urls=${peerUrl}`,
    `--initial-cluster=kvol-test=${peerUrl}`,
    ...(tls === undefined
      ? []
      : [
          `--cert-file=${tls.certFile}`,
          `--key-file=${tls.keyFile}`,
          "--client-cert-auth",
          `--trusted-ca-file=${tls.trustedCaFile}`,
        ]),
  ];
  let child: ChildProcess;
  let exited: Promise<void>;
  const launch = async (): Promise<void> => {
    child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    await ready(child);
  };
  const crash = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  const stop = async (): Promise<void> => {
    await crash();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint: clientUrl, stop, crash, restart: launch };
}
