/**
 * Every name and number the workload controllers share, as Kubernetes spells them
 * (`k8s.io/api/apps/v1`, `pkg/controller/...`), so a label or annotation written here is the one
 * `kubectl` and users' selectors expect.
 */

// Component names: the events' `source.component` and the loggers' `component`.
export const statefulSetControllerName = "statefulset-controller";
export const replicaSetControllerName = "replicaset-controller";
export const deploymentControllerName = "deployment-controller";
export const garbageCollectorName = "garbage-collector-controller";
export const jobControllerName = "job-controller";

// Labels
/** Every StatefulSet pod carries its own name, so a headless Service can select exactly one pod. */
export const statefulSetPodNameLabel = "statefulset.kubernetes.io/pod-name";
/** The ordinal of a StatefulSet pod (feature PodIndexLabel, on by default since 1.28). */
export const podIndexLabel = "apps.kubernetes.io/pod-index";
/** The revision of the StatefulSet template a pod was made from (`<set>-<hash>`). */
export const controllerRevisionHashLabel = "controller-revision-hash";
/** A Deployment's ReplicaSets and their pods carry the hash of the template they were made from. */
export const podTemplateHashLabel = "pod-template-hash";

// Deployment annotations on ReplicaSets and Deployments
export const revisionAnnotation = "deployment.kubernetes.io/revision";
export const desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas";
export const maxReplicasAnnotation = "deployment.kubernetes.io/max-replicas";

// Defaults the API server would fill in (kvol's store does not default workload specs)
export const defaultReplicas = 1;
export const defaultMaxSurge = "25%";
export const defaultMaxUnavailable = "25%";
/** apps/v1 keeps ten old ReplicaSets for rollbacks. */
export const defaultRevisionHistoryLimit = 10;

// Controller tuning (kube-controller-manager defaults)
/** `--concurrent-statefulset-syncs`, `--concurrent-replicaset-syncs`, `--concurrent-deployment-syncs`. */
export const workloadSyncWorkerCount = 5;
/** `--concurrent-gc-syncs`. */
export const garbageCollectorWorkerCount = 20;
/** BurstReplicas: at most this many pods are created or deleted by one ReplicaSet sync. */
export const replicaSetBurstReplicas = 500;
/** SlowStartInitialBatchSize: pod creations start with a batch of one and double while they succeed. */
export const slowStartInitialBatchSize = 1;
/** ExpectationsTimeout: a controller stops waiting for its own writes to be observed after this long. */
export const expectationsTimeoutMs = 5 * 60_000;

export const msPerSecond = 1_000;
