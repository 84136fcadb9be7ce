/**
 * Every tunable of the API server, in one place, with its unit in its name.
 */

/** The Kubernetes release whose API this server speaks, as `/version` reports it. */
export const servedKubernetesMajor = "1";
export const servedKubernetesMinor = "31";
export const servedGitVersion = `v${servedKubernetesMajor}.${servedKubernetesMinor}.0-kvol`;

/** kube-apiserver refuses request bodies above 3 MiB (`MaxRequestBodyBytes`) with 413. */
export const maxRequestBodyBytes = 3 * 1024 * 1024;

/** A watch without `timeoutSeconds` ends after this long (kube-apiserver's `--min-request-timeout`). */
export const defaultWatchTimeoutSeconds = 1800;

/** The longest watch a client may ask for; larger `timeoutSeconds` values are cut to this. */
export const maxWatchTimeoutSeconds = 3600;

/** The largest `limit` a list may ask for in one page; larger values are cut to this. */
export const maxListLimitItems = 100_000;

/**
 * A watcher whose connection holds more than this many unsent bytes is too slow to keep up; its
 * watch is ended (as kube-apiserver ends a watcher whose buffer fills) and it must list again.
 */
export const maxWatchBufferedBytes = 16 * 1024 * 1024;
