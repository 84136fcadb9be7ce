/**
 * The simulator's own numbers, each with its unit. The cluster assembly's live in
 * `src/cmd/constants.ts`; Kubernetes' timers in `src/api/timers.ts`.
 */

// The stand-in kubelet (stand-in-kubelet.ts): test-only timings.
/** From a pod being bound to its containers reported running and Ready. */
export const standInPodStartDelayMs = 1_000;
/** From a pod's deletion to its containers stopped and the final delete (never more than its grace period). */
export const standInContainerStopDelayMs = 1_000;
