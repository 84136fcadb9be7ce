/** The namespace controller's numbers (pkg/controller/namespace), each with its unit. */

/** nsControllerRateLimiter: a namespace whose content remains is retried from 5 ms, doubling… */
export const namespaceRetryBaseDelayMs = 5;
/** …but at least once a minute, never less often. */
export const namespaceRetryMaxDelayMs = 60_000;

/** Namespaces deleted in parallel (kube-controller-manager's --concurrent-namespace-syncs is 10). */
export const namespaceWorkerCount = 10;

export const namespaceControllerName = "namespace-controller";
