/**
 * The FUSE daemons of a fuse.csi.kvol.io node plugin. Each staged (or, without staging, each
 * published) volume is served by one daemon that the plugin starts through the Host in its own
 * agent scope — inside the plugin "container" — and that mounts `fuse.<program>` on the path.
 * That placement is the point of seed 003: when the container goes, its daemons go with it, and
 * the kernel mounts they served stay behind answering ENOTCONN.
 *
 * What the daemon runs is the driver's FuseProgram (fuse-program.ts): `kvolfs` in the simulator,
 * `bindfs` or `s3fs` on a real node.
 */
import type { Host, MountInfo, ProcessInfo } from "../../../host/host.ts";
import type { Clock } from "../../../runtime/clock.ts";
import { fuseMountPollPeriodMs, fuseMountTimeoutMs } from "../common/constants.ts";
import type { FuseProgram } from "./fuse-program.ts";

interface FuseDaemonSpec {
  program: FuseProgram;
  /** The agent scope the daemon joins (the node plugin's). */
  agent: string;
  volumeId: string;
  /** Where it mounts. */
  mountPoint: string;
}

/** Whether a mount table entry is a FUSE mount serving `source` (what our daemons make). */
export function isFuseMountOf(entry: MountInfo, source: string): boolean {
  return (entry.fsType === "fuse" || entry.fsType.startsWith("fuse.")) && entry.source === source;
}

/**
 * Starts the daemon and resolves once its mount is in the mount table. A daemon that exits first,
 * or does not mount within fuseMountTimeoutMs (then it is killed), is an Error.
 */
export async function startFuseDaemon(host: Host, clock: Clock, spec: FuseDaemonSpec): Promise<ProcessInfo> {
  const { program, volumeId, mountPoint } = spec;
  const source = program.mountSource(volumeId);
  const daemon = await host.startDaemon({
    name: `${program.command}:${volumeId}`,
    command: program.command,
    args: program.args(volumeId, mountPoint),
    scope: "agent",
    agent: spec.agent,
  });
  const deadlineMs = clock.now() + fuseMountTimeoutMs;
  for (;;) {
    const mounted = (await host.mountInfo()).some(
      (entry) => entry.mountPoint === mountPoint && isFuseMountOf(entry, source),
    );
    if (mounted) return daemon;
    if (!(await host.isProcessAlive(daemon.pid))) {
      throw new Error(`${program.command} (pid ${daemon.pid}) exited before mounting ${source} on ${mountPoint}`);
    }
    if (clock.now() >= deadlineMs) {
      await host.killProcess(daemon.pid);
      throw new Error(
        `${program.command} (pid ${daemon.pid}) did not mount ${mountPoint} within ${fuseMountTimeoutMs} ms; killed it`,
      );
    }
    await clock.sleep(fuseMountPollPeriodMs);
  }
}

/** The daemons alive in `agent`'s scope. */
async function daemonsOfAgent(host: Host, agent: string): Promise<ProcessInfo[]> {
  return (await host.daemons()).filter((daemon) => daemon.scope === "agent" && daemon.agent === agent);
}

/** Kills every daemon of `agent`, as a container runtime does when the container stops; returns them. */
export async function killDaemonsOfAgent(host: Host, agent: string): Promise<ProcessInfo[]> {
  const daemons = await daemonsOfAgent(host, agent);
  for (const daemon of daemons) await host.killProcess(daemon.pid);
  return daemons;
}
