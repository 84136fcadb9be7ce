/**
 * Leader election facts from client-go (tools/leaderelection) and kube-controller-manager. The
 * three timings themselves (15 s, 10 s, 2 s) are Kubernetes timers and live in `api/timers.ts`.
 */

/** client-go leaderelection.JitterFactor: a candidate waits retryPeriod × (1 + up to 1.2) between tries. */
export const leaderElectionJitterFactor = 1.2;

/** kube-controller-manager's lock: the Lease `kube-system/kube-controller-manager`. */
export const controllerManagerLeaseNamespace = "kube-system";
export const controllerManagerLeaseName = "kube-controller-manager";

/** kube-scheduler's lock: the Lease `kube-system/kube-scheduler`. */
export const schedulerLeaseNamespace = "kube-system";
export const schedulerLeaseName = "kube-scheduler";

/** What kube-controller-manager logs before exiting when it can no longer renew its lease. */
export const leadershipLostMessage = "leaderelection lost";

/** client-go release(): a released lock is written with a one-second lease so it expires at once. */
export const releasedLeaseDurationSeconds = 1;
