/**
 * The cluster assembly's own numbers (`cluster.ts`), each with its unit. Kubernetes' timers live in
 * `src/api/timers.ts`; the kubelet's in `src/kubelet/constants.ts`.
 */

/** The seed a cluster uses when none is given. */
export const defaultClusterSeed = 1;

/** Namespaces every cluster starts with, as a fresh kube-apiserver creates them. */
export { systemNamespaces } from "../api/namespaces.ts";

/** The namespace a namespaced manifest without one is applied to. */
export const defaultNamespace = "default";

/** How long `runUntil` waits when the caller gives no timeout: ten virtual minutes. */
export const defaultRunUntilTimeoutMs = 10 * 60_000;

/**
 * When a cluster stops, controllers finish their current sync; virtual time is moved on in these
 * steps, at most `stopDrainMaxSteps` times, so a sync waiting on a timer can end.
 */
export const stopDrainStepMs = 1_000;
export const stopDrainMaxSteps = 600;
