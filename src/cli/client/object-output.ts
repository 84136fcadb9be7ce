/**
 * `-o yaml`, `-o json` and `-o name` for objects read from the server: one object as it is, several
 * as a `List`, every item with its kind and apiVersion (list items come without them).
 */
import { stringify } from "yaml";
import type { KObject } from "../../api/objects.ts";
import { apiVersionOf, type ResourceType } from "../../api/resources.ts";
import { objectRef, UsageError } from "./resource-args.ts";

type ObjectFormat = "yaml" | "json" | "name";
export type OutputFormat = ObjectFormat | "wide" | "table";

export function parseOutputFormat(text: string | undefined): OutputFormat {
  if (text === undefined || text === "") return "table";
  if (text === "yaml" || text === "json" || text === "name" || text === "wide") return text;
  throw new UsageError(
    `unable to match a printer suitable for the output format "${text}"; use yaml, json, name or wide`,
  );
}

export interface TypedObject {
  type: ResourceType;
  object: KObject;
}

/** The object with its kind and apiVersion first, as kubectl prints it. */
function withTypeMeta({ type, object }: TypedObject): KObject {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  return { apiVersion: apiVersionOf(type), kind: type.kind, ...rest };
}

export function formatObjects(objects: readonly TypedObject[], format: ObjectFormat, single: boolean): string {
  if (format === "name")
    return objects.map(({ type, object }) => `${objectRef(type, object.metadata?.name ?? "")}\n`).join("");
  const value =
    single && objects.length === 1 && objects[0] !== undefined
      ? withTypeMeta(objects[0])
      : { apiVersion: "v1", kind: "List", items: objects.map(withTypeMeta), metadata: { resourceVersion: "" } };
  return format === "json" ? `${JSON.stringify(value, null, 4)}\n` : stringify(value, { lineWidth: 0 });
}
