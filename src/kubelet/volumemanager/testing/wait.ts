/** Test helpers that run the virtual clock while waiting on the volume manager. */
import type { Pod } from "kubernetes-types/core/v1.js";
import type { VolumeManagerEnv } from "./volume-manager-env.ts";

interface WaitOutcome {
  /** Virtual milliseconds from the call until it settled. */
  elapsedMs: number;
  /** The rejection, when it rejected. */
  error?: Error;
}

/** A WaitForAttachAndMount call in progress; `outcome` is set when it settles. */
interface PodSync {
  /** Virtual time of the call. */
  started: number;
  outcome: WaitOutcome | undefined;
}

/** Calls WaitForAttachAndMount as a pod sync does, without running the clock. */
export function startPodSync(env: VolumeManagerEnv, pod: Pod): PodSync {
  const started = env.clock.now();
  const sync: PodSync = { started, outcome: undefined };
  env.manager.waitForAttachAndMount(pod).then(
    () => {
      sync.outcome = { elapsedMs: env.clock.now() - started };
    },
    (error: Error) => {
      sync.outcome = { elapsedMs: env.clock.now() - started, error };
    },
  );
  return sync;
}

/** Runs virtual time (at most `maxMs`) until the sync settles; throws when it has not by then. */
export async function finishPodSync(env: VolumeManagerEnv, sync: PodSync, maxMs = 10_000): Promise<WaitOutcome> {
  const deadline = env.clock.now() + maxMs;
  // Step by one reconciler period so time stops close to the moment the wait settles.
  while (sync.outcome === undefined && env.clock.now() < deadline) await env.clock.advanceBy(100);
  if (sync.outcome === undefined) throw new Error(`WaitForAttachAndMount did not settle within ${maxMs} ms`);
  return sync.outcome;
}

/** A pod sync, run until WaitForAttachAndMount settles (at most `maxMs` of virtual time). */
export function syncPodAndWait(env: VolumeManagerEnv, pod: Pod, maxMs = 10_000): Promise<WaitOutcome> {
  return finishPodSync(env, startPodSync(env, pod), maxMs);
}

/** Lists the mount points on the node under `prefix`. */
export async function mountPointsUnder(env: VolumeManagerEnv, prefix: string): Promise<string[]> {
  return (await env.host.mountInfo())
    .map((mount) => mount.mountPoint)
    .filter((mountPoint) => mountPoint.startsWith(prefix))
    .sort();
}

export async function readText(env: VolumeManagerEnv, path: string): Promise<string> {
  return Buffer.from(await env.host.readFile(path)).toString();
}
