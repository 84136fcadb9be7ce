/**
 * The subresources kube-apiserver serves besides `status` and `pods/binding`, as discovery lists
 * them: `scale` (autoscaling/v1 Scale) of the replicated workloads, a namespace's `finalize`, a
 * pod's `eviction`, `log`, `exec`, `attach` and `portforward`, and a service account's `token`
 * (TokenRequest). Discovery, the path parser and the router all read this one table.
 */
import type { KindName } from "../api/objects.ts";
import type { ResourceType } from "../api/resources.ts";

export type ExtraSubresourceName =
  | "scale"
  | "finalize"
  | "eviction"
  | "log"
  | "exec"
  | "attach"
  | "portforward"
  | "token";

interface ExtraSubresource {
  name: ExtraSubresourceName;
  kinds: readonly KindName[];
  /** The kind its requests and answers carry (discovery's `group`, `version`, `kind`). */
  responseKind: { group: string; version: string; kind: string };
  verbs: readonly string[];
}

const connectVerbs = ["create", "get"] as const;

const extraSubresources: readonly ExtraSubresource[] = [
  {
    name: "scale",
    kinds: ["StatefulSet", "Deployment", "ReplicaSet"],
    responseKind: { group: "autoscaling", version: "v1", kind: "Scale" },
    verbs: ["get", "patch", "update"],
  },
  {
    name: "finalize",
    kinds: ["Namespace"],
    responseKind: { group: "", version: "v1", kind: "Namespace" },
    verbs: ["update"],
  },
  {
    name: "eviction",
    kinds: ["Pod"],
    responseKind: { group: "policy", version: "v1", kind: "Eviction" },
    verbs: ["create"],
  },
  { name: "log", kinds: ["Pod"], responseKind: { group: "", version: "v1", kind: "Pod" }, verbs: ["get"] },
  {
    name: "exec",
    kinds: ["Pod"],
    responseKind: { group: "", version: "v1", kind: "PodExecOptions" },
    verbs: connectVerbs,
  },
  {
    name: "attach",
    kinds: ["Pod"],
    responseKind: { group: "", version: "v1", kind: "PodAttachOptions" },
    verbs: connectVerbs,
  },
  {
    name: "portforward",
    kinds: ["Pod"],
    responseKind: { group: "", version: "v1", kind: "PodPortForwardOptions" },
    verbs: connectVerbs,
  },
  {
    name: "token",
    kinds: ["ServiceAccount"],
    responseKind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" },
    verbs: ["create"],
  },
];

/** The extra subresources a kind serves, in discovery order. */
export function extraSubresourcesOf(type: ResourceType): readonly ExtraSubresource[] {
  return extraSubresources.filter((subresource) => subresource.kinds.includes(type.kind));
}

export function findExtraSubresource(type: ResourceType, name: string): ExtraSubresource | undefined {
  return extraSubresourcesOf(type).find((subresource) => subresource.name === name);
}
