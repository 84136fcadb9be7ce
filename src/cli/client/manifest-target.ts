/**
 * Where a manifest's object lives on the server: its resource type (from apiVersion and kind), its
 * namespace (the object's own, else `-n`, else the context's; a different one from `-n` is refused
 * as kubectl refuses it) and its name.
 */
import type { KObject } from "../../api/objects.ts";
import { apiVersionOf, type ResourceType, resourceForKind } from "../../api/resources.ts";
import type { SourcedObject } from "./manifest-files.ts";

export interface ManifestTarget {
  type: ResourceType;
  namespace: string;
  name: string;
  /** The object with its namespace filled in. */
  object: KObject;
}

export class ManifestError extends Error {}

export function targetOf(
  { object, source }: SourcedObject,
  namespace: { value: string; explicit: boolean },
): ManifestTarget {
  const kind = typeof object.kind === "string" ? object.kind : "";
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  if (kind === "" || apiVersion === "") {
    throw new ManifestError(`${source}: the object must set apiVersion and kind`);
  }
  const type = resourceForKind(kind);
  if (type === undefined || apiVersionOf(type) !== apiVersion) {
    throw new ManifestError(
      `${source}: no matches for kind "${kind}" in version "${apiVersion}"${type === undefined ? "" : `; kvol serves ${kind} as ${apiVersionOf(type)}`}`,
    );
  }
  const name = object.metadata?.name ?? "";
  if (name === "") throw new ManifestError(`${source}: ${kind} has no metadata.name (generateName cannot be applied)`);
  if (!type.namespaced) return { type, namespace: "", name, object };
  const own = object.metadata?.namespace ?? "";
  if (own !== "" && namespace.explicit && own !== namespace.value) {
    throw new ManifestError(
      `${source}: the namespace from the provided object "${own}" does not match the namespace "${namespace.value}". You must pass '--namespace=${own}' to perform this operation.`,
    );
  }
  const chosen = own === "" ? namespace.value : own;
  return { type, namespace: chosen, name, object: { ...object, metadata: { ...object.metadata, namespace: chosen } } };
}
