/**
 * Which representation a response takes, from its Accept header, as kube-apiserver negotiates it:
 * the first range (by preference) that one of the resource's serializers can serve wins.
 * `application/json;as=Table;v=v1;g=meta.k8s.io` (kubectl get) gets a Table, which only JSON and
 * YAML carry (a protobuf Table range is passed over, as kube-apiserver does);
 * `as=PartialObjectMetadata[List]` gets the objects' metadata only, in any representation; a range
 * asking for another conversion is passed over. `stream=watch` is accepted on JSON and protobuf.
 * Nothing acceptable is a 406 naming what is. `?includeObject=None|Metadata|Object` says what each
 * Table row carries.
 */
import type { IncomingMessage } from "node:http";
import { ApiError, badRequest } from "../api/errors.ts";
import {
  type MediaRange,
  mediaTypeOf,
  parseAccept,
  rangeMatches,
  type Serializer,
  serializersFor,
} from "./media-types.ts";

type IncludeObject = "None" | "Metadata" | "Object";

export interface TableRequest {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as the client asked. */
  apiVersion: string;
  includeObject: IncludeObject;
}

/** `as=PartialObjectMetadata` / `as=PartialObjectMetadataList`: only the objects' metadata (client-go's metadata client). */
export interface MetadataRequest {
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as the client asked. */
  apiVersion: string;
  kind: "PartialObjectMetadata" | "PartialObjectMetadataList";
}

export interface OutputChoice {
  serializer: Serializer;
  /** Set when the client asked for a Table. */
  table?: TableRequest;
  /** Set when the client asked for metadata only. */
  metadata?: MetadataRequest;
}

const tableGroup = "meta.k8s.io";
const tableVersions = new Set(["v1", "v1beta1"]);
const includeObjectPolicies = new Set<string>(["None", "Metadata", "Object"]);

function includeObjectOf(query: URLSearchParams): IncludeObject {
  const given = query.get("includeObject");
  if (given === null || given === "") return "Metadata";
  if (!includeObjectPolicies.has(given)) {
    throw badRequest(`includeObject=${given} is not one of None, Metadata, Object`);
  }
  return given as IncludeObject;
}

function notAcceptable(serializers: readonly Serializer[]): ApiError {
  const accepted = serializers.map((serializer) => mediaTypeOf[serializer]).join(", ");
  return new ApiError("NotAcceptable", `only the following media types are accepted: ${accepted}`);
}

/** The choice this range makes with this serializer, or undefined when it asks for something not served. */
function choiceFor(range: MediaRange, serializer: Serializer, query: URLSearchParams): OutputChoice | undefined {
  const stream = range.parameters.get("stream");
  if (stream !== undefined && stream !== "" && (stream !== "watch" || serializer === "yaml")) return undefined;
  const as = range.parameters.get("as");
  if (as === undefined) return { serializer };
  const version = range.parameters.get("v") ?? "";
  if (range.parameters.get("g") !== tableGroup || !tableVersions.has(version)) return undefined;
  const apiVersion = `${tableGroup}/${version}`;
  // PartialObjectMetadata travels in every representation, protobuf included.
  if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList")
    return { serializer, metadata: { apiVersion, kind: as } };
  if (as !== "Table" || serializer === "protobuf") return undefined;
  return { serializer, table: { apiVersion, includeObject: includeObjectOf(query) } };
}

/**
 * The representation to answer with. `protobuf` says whether the resource has a protobuf form;
 * without one (custom-resource-like kinds) a protobuf range is passed over and a later range
 * (`application/json`, `*\/*`) serves, as kube-apiserver answers for custom resources.
 */
export function negotiateOutput(request: IncomingMessage, query: URLSearchParams, protobuf: boolean): OutputChoice {
  const header = request.headers.accept ?? "";
  const serializers = serializersFor(protobuf);
  if (header.trim() === "") return { serializer: "json" };
  for (const range of parseAccept(header)) {
    for (const serializer of serializers) {
      if (!rangeMatches(range, serializer)) continue;
      const choice = choiceFor(range, serializer, query);
      if (choice !== undefined) return choice;
    }
  }
  throw notAcceptable(serializers);
}
