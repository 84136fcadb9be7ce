/**
 * A new pod from a workload's pod template (controller.GetPodFromTemplate): the template's labels,
 * annotations, finalizers and spec, a controller reference to the workload, and `generateName`
 * `<owner>-` so the API server picks a unique name (a StatefulSet then sets a fixed name instead).
 */
import type { ApiObject } from "../../api/client/client.ts";
import { clone } from "../../api/client/copy.ts";
import type { Pod, ReplicaSet } from "../../api/objects.ts";
import type { OwnerReference } from "./controller-ref.ts";

/** A workload's `spec.template` (core/v1 PodTemplateSpec). */
export type PodTemplate = NonNullable<NonNullable<ReplicaSet["spec"]>["template"]>;

export function podFromTemplate(template: PodTemplate, owner: ApiObject, controllerRef: OwnerReference): Pod {
  const metadata = template.metadata ?? {};
  const copied = clone({
    labels: metadata.labels,
    annotations: metadata.annotations,
    finalizers: metadata.finalizers,
    spec: template.spec ?? { containers: [] },
  });
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${owner.metadata?.name ?? ""}-`,
      namespace: owner.metadata?.namespace,
      ...(copied.labels === undefined ? {} : { labels: copied.labels }),
      ...(copied.annotations === undefined ? {} : { annotations: copied.annotations }),
      ...(copied.finalizers === undefined ? {} : { finalizers: copied.finalizers }),
      ownerReferences: [{ ...controllerRef }],
    },
    spec: copied.spec,
  };
}
