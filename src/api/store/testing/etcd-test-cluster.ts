/**
 * A throwaway 3-member etcd cluster for fault tests: the machine's `etcd` binary, each member on
 * free loopback ports with a data directory from mkdtemp. A member can be killed (SIGKILL) and
 * started again on its data; `stop` kills all and removes their data.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { etcdBinary, freePort, ready } from "./etcd-test-server.ts";

export interface TestEtcdCluster {
  /** The members' client URLs, in member order. */
  endpoints: readonly string[];
  /** Kills member `index` with SIGKILL; its data stays. */
  kill(index: number): Promise<void>;
  /** Starts member `index` again on its data and ports, as a member of the existing cluster. */
  restart(index: number): Promise<void>;
  /** Kills every member and removes their data. */
  stop(): Promise<void>;
}

interface Member {
  name: string;
  dataDir: string;
  clientUrl: string;
  peerUrl: string;
  child?: ChildProcess;
  exited?: Promise<void>;
}

export async function startTestEtcdCluster(size = 3): Promise<TestEtcdCluster> {
  const binary = etcdBinary();
  if (binary === undefined) throw new Error("etcd is not installed (Debian: apt-get install etcd-server)");
  const token = `kvol-test-${randomUUID()}`;
  const members: Member[] = [];
  for (let index = 0; index < size; index++) {
    members.push({
      name: `member-${index}`,
      dataDir: mkdtempSync(join(tmpdir(), `kvol-etcd-${index}-`)),
      clientUrl: `http://127.0.0.1:${await freePort()}`,
      peerUrl: `http://127.0.0.1:${await freePort()}`,
    });
  }
  const initialCluster = members.map((member) => `${member.name}=${member.peerUrl}`).join(",");
  const launch = (member: Member, state: "new" | "existing"): Promise<void> => {
    const child = spawn(
      binary,
      [
        `--name=${member.name}`,
        `--data-dir=${member.dataDir}`,
        `--listen-client-urls=${member.clientUrl}`,
        `--advertise-client-urls=${member.clientUrl}`,
        `--listen-peer-urls=${member.peerUrl}`,
        `--initial-advertise-peer-urls=${member.peerUrl}`,
        `--initial-cluster=${initialCluster}`,
        `--initial-cluster-state=${state}`,
        `--initial-cluster-token=${token}`,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    member.child = child;
    member.exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    return ready(child);
  };
  const kill = async (index: number): Promise<void> => {
    const member = members[index];
    if (member === undefined) throw new RangeError(`no etcd member ${index} (the cluster has ${size})`);
    const child = member.child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await member.exited;
  };
  const stop = async (): Promise<void> => {
    for (let index = 0; index < size; index++) await kill(index);
    for (const member of members) rmSync(member.dataDir, { recursive: true, force: true });
  };
  try {
    // A new member is ready once the cluster has a leader, which needs a quorum: start all at once.
    await Promise.all(members.map((member) => launch(member, "new")));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoints: members.map((member) => member.clientUrl),
    kill,
    restart: async (index) => {
      const member = members[index];
      if (member === undefined) throw new RangeError(`no etcd member ${index} (the cluster has ${size})`);
      await launch(member, "existing");
    },
    stop,
  };
}
