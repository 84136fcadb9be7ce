/**
 * `kvol up --etcd`: the whole cluster in this process with its objects in a local etcd started
 * for it (`embedded/local-etcd.ts`) instead of the SQLite file; etcd stops when kvol stops.
 */
import { join } from "node:path";
import { errorMessage } from "../runtime/error-message.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { type CommandIo, exitFailure } from "./command-io.ts";
import { LocalEtcd } from "./embedded/local-etcd.ts";
import { checkDataDir } from "./embedded/preflight.ts";
import type { ClusterArguments } from "./up-command.ts";

/** Why `--etcd` cannot go with these arguments, or undefined. */
export function localEtcdConflict(parsed: { ephemeral: boolean; nodeHost: string }): string | undefined {
  if (parsed.ephemeral) return "--etcd and --ephemeral cannot be combined: etcd keeps the objects on disk";
  if (parsed.nodeHost !== "sim") return "--etcd runs simulated nodes; for real nodes use kvol server --etcd-servers";
  return undefined;
}

export async function runUpWithLocalEtcd(
  parsed: ClusterArguments,
  io: CommandIo,
  runCluster: (cluster: ClusterArguments) => Promise<number>,
): Promise<number> {
  const dataDir = parsed.dataDir;
  if (dataDir === undefined) throw new Error("kvol up --etcd: a data directory is needed for etcd's data");
  let etcd: LocalEtcd;
  try {
    checkDataDir(dataDir);
    etcd = await LocalEtcd.start(dataDir, new RealClock());
  } catch (error) {
    io.stderr(`kvol up: ${errorMessage(error)}\n`);
    return exitFailure;
  }
  io.stderr(`etcd: serving ${etcd.clientUrl}, data in ${join(dataDir, "etcd")}\n`);
  try {
    return await runCluster({ ...parsed, etcdServers: [etcd.clientUrl] });
  } finally {
    await etcd.stop();
  }
}
