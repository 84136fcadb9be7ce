/** Namespaces Kubernetes gives a meaning to. */

/** Where each node's heartbeat Lease lives (`kube-node-lease`, one Lease per node, named after it). */
export const nodeLeaseNamespace = "kube-node-lease";
