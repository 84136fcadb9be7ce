/**
 * Whether the reconciler may attach a volume to a node while it is attached to another: Kubernetes
 * allows it unless the volume is ReadWriteOnce / ReadWriteOncePod (without ReadWriteMany or
 * ReadOnlyMany), and refuses it otherwise with the Multi-Attach events. The controller receives the
 * policy, so a test can inject a broken one (testing/broken-multi-attach-policy.ts) and show that
 * the simulator's invariants catch the double attach it causes.
 */
import { isMultiAttachAllowed } from "../../../volume/operationexecutor/multi-attach.ts";
import type { VolumeSpec } from "../../../volume/spec.ts";

export interface MultiAttachPolicy {
  /** True when the volume may be attached to several nodes at once. */
  allowsMultiAttach(spec: VolumeSpec): boolean;
}

/** Kubernetes' rule (volume/operationexecutor/multi-attach.ts). */
export const kubernetesMultiAttachPolicy: MultiAttachPolicy = {
  allowsMultiAttach: (spec) => isMultiAttachAllowed(spec),
};
