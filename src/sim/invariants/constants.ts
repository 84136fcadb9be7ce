/**
 * The invariants' own numbers, each with its unit and the reason for its value. Kubernetes' timers
 * come from `src/api/timers.ts` (a scenario may override them, so the grace is derived from the
 * cluster's timers rather than fixed).
 */
import { DEFAULT_TIMERS, type Timers } from "../../api/timers.ts";
import { maxDurationBeforeRetryMs } from "../../runtime/backoff.ts";

/** Changes kept per object for a violation report; older ones are dropped. */
export const historyEntriesPerObject = 12;

/** Objects whose history is kept at once; the least recently changed is forgotten first. */
export const historyObjectsMax = 20_000;

/** Log lines mentioning a violation's objects that a report shows (the most recent ones). */
export const reportLogLinesMax = 15;

/**
 * How long a mount, loop device or FUSE daemon may outlive every pod and volume that accounts for
 * it before it counts as left behind, while its node is up and Ready. A teardown step (NodeUnpublish,
 * NodeUnstage, umount) may run for up to csiTimeout (2 min, spec §9 #15) before failing; the failed
 * operation is retried after the exponential backoff, capped at 2 min 2 s (#14); the kubelet's
 * desired-state populator and reconciler notice the pod is gone within one loop each (100 ms, #7 #8).
 * So a kubelet that cleans up at all has done so by the sum: 4 min 2.2 s with the default timers.
 */
export function leftoverGraceMsFor(timers: Timers): number {
  return (
    timers.csiTimeoutMs +
    maxDurationBeforeRetryMs +
    timers.kubeletDesiredStatePopulatorLoopPeriodMs +
    timers.kubeletReconcilerLoopPeriodMs
  );
}

/** The grace with the timers Kubernetes ships: 242,200 ms. */
export const leftoverGraceMs = leftoverGraceMsFor(DEFAULT_TIMERS);

/** The kubelet root every kubelet in the simulator uses (`--root-dir`). */
export { defaultKubeletRootDir as kubeletRootDir } from "../../volume/paths.ts";
