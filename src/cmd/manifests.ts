/**
 * What `cluster.apply` accepts: one object, a list of objects, or YAML text with one or more
 * documents (`---`), as `kubectl apply -f` does. A `kind: List` is unpacked. Every object must
 * name a kind kvol stores and carry a name; namespaced kinds default to the `default` namespace.
 */
import { parseAllDocuments } from "yaml";
import type { KindName, KObject } from "../api/objects.ts";
import { RESOURCES, resourceForKind } from "../api/resources.ts";
import { defaultNamespace } from "./constants.ts";

export type Manifests = KObject | readonly KObject[] | string;

export interface Manifest {
  kind: KindName;
  object: KObject;
}

function isObject(value: unknown): value is KObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function fromYaml(text: string): unknown[] {
  const documents = parseAllDocuments(text);
  const items: unknown[] = [];
  documents.forEach((document, index) => {
    if (document.errors.length > 0) {
      throw new Error(`manifest document ${index + 1} is not valid YAML: ${document.errors[0]?.message ?? ""}`);
    }
    const value: unknown = document.toJS();
    if (value !== null && value !== undefined) items.push(value);
  });
  return items;
}

function unpackLists(items: readonly unknown[]): unknown[] {
  return items.flatMap((item) =>
    isObject(item) && item.kind === "List" && Array.isArray(item.items) ? item.items : [item],
  );
}

function checked(item: unknown, index: number): Manifest {
  const where = `manifest ${index + 1}`;
  if (!isObject(item))
    throw new Error(`${where}: expected an object with kind and metadata, got ${JSON.stringify(item)}`);
  const type = typeof item.kind === "string" ? resourceForKind(item.kind) : undefined;
  if (type === undefined) {
    const known = RESOURCES.map((resource) => resource.kind).join(", ");
    throw new Error(`${where}: kind ${JSON.stringify(item.kind)} is not one kvol stores (known kinds: ${known})`);
  }
  if (!item.metadata?.name) throw new Error(`${where} (${type.kind}): metadata.name is required`);
  const namespace = type.namespaced ? item.metadata.namespace || defaultNamespace : undefined;
  const metadata = { ...item.metadata, ...(namespace === undefined ? {} : { namespace }) };
  return { kind: type.kind, object: { ...item, metadata } };
}

/** The objects in `manifests`, in order, checked and with namespaces filled in. */
export function parseManifests(manifests: Manifests): Manifest[] {
  const items =
    typeof manifests === "string" ? fromYaml(manifests) : Array.isArray(manifests) ? [...manifests] : [manifests];
  return unpackLists(items).map(checked);
}
