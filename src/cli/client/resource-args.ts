/**
 * The resource arguments of `get`, `describe` and `delete`, read as kubectl reads them:
 * `pods`, `pv,pvc` (several kinds), `pod/web` (kind and name in one), short names and kinds in
 * any case, followed by names.
 */
import { RESOURCES, type ResourceType, resolveResourceName } from "../../api/resources.ts";

export interface ResourceSelection {
  type: ResourceType;
  /** Empty: every object of the kind. */
  names: string[];
}

export class UsageError extends Error {}

function resolveType(name: string): ResourceType {
  const type = resolveResourceName(name);
  if (type === undefined) {
    const known = RESOURCES.map((r) => r.plural).join(", ");
    throw new UsageError(`the server doesn't have a resource type "${name}"; kvol serves ${known}`);
  }
  return type;
}

/** Kinds and names from the positional arguments. */
export function parseResourceArgs(args: readonly string[]): ResourceSelection[] {
  const [first, ...rest] = args;
  if (first === undefined) throw new UsageError("you must specify the type of resource, e.g. `pods` or `pv,pvc`");
  if (first.includes("/")) {
    return args.map((arg) => {
      const [kind = "", name = "", ...extra] = arg.split("/");
      if (kind === "" || name === "" || extra.length > 0) {
        throw new UsageError(`"${arg}" is not TYPE/NAME; write every argument as TYPE/NAME, e.g. pod/web-0`);
      }
      return { type: resolveType(kind), names: [name] };
    });
  }
  const types = first
    .split(",")
    .filter((part) => part !== "")
    .map(resolveType);
  if (types.length > 1 && rest.length > 0) {
    throw new UsageError("names cannot be given with several resource types; use TYPE/NAME arguments instead");
  }
  return types.map((type) => ({ type, names: [...rest] }));
}

/** `pod` or `storageclass.storage.k8s.io`: how kubectl names a kind in `kind/name` output. */
export function qualifiedKindName(type: ResourceType): string {
  const singular = type.kind.toLowerCase();
  return type.group === "" ? singular : `${singular}.${type.group}`;
}

/** `pod/web` or `storageclass.storage.k8s.io/standard`. */
export function objectRef(type: ResourceType, name: string): string {
  return `${qualifiedKindName(type)}/${name}`;
}
