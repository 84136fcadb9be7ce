/**
 * Which representation a GET asks for, from its Accept header, as kube-apiserver negotiates it:
 * `application/json;as=Table;v=v1;g=meta.k8s.io` (kubectl get) gets a Table, anything else the
 * objects themselves. `?includeObject=None|Metadata|Object` says what each row carries.
 */
import type { IncomingMessage } from "node:http";
import { badRequest } from "../api/errors.ts";

export type IncludeObject = "None" | "Metadata" | "Object";

export interface TableRequest {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as the client asked. */
  apiVersion: string;
  includeObject: IncludeObject;
}

const tableGroup = "meta.k8s.io";
const tableVersions = new Set(["v1", "v1beta1"]);
const includeObjectPolicies = new Set<string>(["None", "Metadata", "Object"]);

interface MediaRange {
  type: string;
  parameters: Map<string, string>;
}

function parseMediaRange(text: string): MediaRange {
  const [type = "", ...parameterTexts] = text.split(";").map((part) => part.trim());
  const parameters = new Map<string, string>();
  for (const parameter of parameterTexts) {
    const [key = "", value = ""] = parameter.split("=", 2).map((part) => part.trim());
    parameters.set(key.toLowerCase(), value);
  }
  return { type: type.toLowerCase(), parameters };
}

function acceptsJson(range: MediaRange): boolean {
  return range.type === "application/json" || range.type === "*/*" || range.type === "application/*";
}

/** The Table version a media range asks for, or undefined when it asks for something else. */
function tableVersionOf(range: MediaRange): string | undefined {
  if (!acceptsJson(range) || range.parameters.get("as") !== "Table") return undefined;
  if (range.parameters.get("g") !== tableGroup) return undefined;
  const version = range.parameters.get("v") ?? "";
  return tableVersions.has(version) ? version : undefined;
}

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const given = query.get("includeObject");
  if (given === null || given === "") return "Metadata";
  if (!includeObjectPolicies.has(given)) {
    throw badRequest(`includeObject=${given} is not one of None, Metadata, Object`);
  }
  return given as IncludeObject;
}

/**
 * The Table the request asks for, or undefined when it wants the objects. The first media range
 * the server can serve wins, as in the client's order of preference.
 */
export function tableRequestOf(request: IncomingMessage, query: URLSearchParams): TableRequest | undefined {
  const accept = request.headers.accept ?? "";
  for (const text of accept.split(",")) {
    const range = parseMediaRange(text);
    const version = tableVersionOf(range);
    if (version !== undefined) return { apiVersion: `${tableGroup}/${version}`, includeObject: includeObjectOf(query) };
    // A plain JSON range (no `as=`) before any Table range means the client prefers the objects.
    if (acceptsJson(range) && !range.parameters.has("as")) return undefined;
  }
  return undefined;
}
