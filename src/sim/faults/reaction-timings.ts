/**
 * The Kubernetes timings the fault descriptions quote, read from the timers kvol runs with by
 * default, so the documentation states what the simulator does.
 */
import { DEFAULT_TIMERS } from "../../api/timers.ts";
import { nfsForegroundMountRetryDefaultMs } from "../../host/sim/sim-constants.ts";
import { maxDurationBeforeRetryMs } from "../../runtime/backoff.ts";
import { formatGoDuration, msPerSecond } from "../../runtime/duration.ts";

export const nodeMonitorGracePeriod = formatGoDuration(DEFAULT_TIMERS.nodeMonitorGracePeriodMs);
export const unreachableToleration = formatGoDuration(DEFAULT_TIMERS.defaultUnreachableTolerationSeconds * msPerSecond);
export const forceDetachWait = formatGoDuration(DEFAULT_TIMERS.adcMaxWaitForUnmountMs);
export const podAttachAndMountTimeout = formatGoDuration(DEFAULT_TIMERS.podAttachAndMountTimeoutMs);
export const csiTimeout = formatGoDuration(DEFAULT_TIMERS.csiTimeoutMs);
export const externalAttacherTimeout = formatGoDuration(DEFAULT_TIMERS.externalAttacherTimeoutMs);
export const podGcPeriod = formatGoDuration(DEFAULT_TIMERS.podGcPeriodMs);
/** The cap of the volume operations' backoff (500 ms doubling). */
export const operationBackoffCap = formatGoDuration(maxDurationBeforeRetryMs);
/** How long mount.nfs retries an unreachable server before `Connection timed out` (nfs(5) `retry=`). */
export const nfsMountRetry = formatGoDuration(nfsForegroundMountRetryDefaultMs);
