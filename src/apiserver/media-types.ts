/**
 * The media types the API server reads and writes, and the Accept header as kube-apiserver parses
 * it: comma-separated ranges with parameters, ordered by `q` (highest first, a range with q=0 is
 * never acceptable) and, at equal `q`, specific types before wildcards, else in the client's order.
 */
import { protobufMediaType } from "../api/protobuf/envelope.ts";

export const jsonMediaType = "application/json";
const yamlMediaType = "application/yaml";

export { protobufMediaType };
export const protobufWatchMediaType = `${protobufMediaType};stream=watch`;

export type Serializer = "json" | "yaml" | "protobuf";

export const mediaTypeOf: Readonly<Record<Serializer, string>> = {
  json: jsonMediaType,
  yaml: yamlMediaType,
  protobuf: protobufMediaType,
};

/** What a resource can be read and written as, in kube-apiserver's order; kinds without a protobuf schema have two. */
export function serializersFor(protobuf: boolean): Serializer[] {
  return protobuf ? ["json", "yaml", "protobuf"] : ["json", "yaml"];
}

export interface MediaRange {
  type: string;
  subtype: string;
  parameters: Map<string, string>;
  q: number;
}

function parseRange(text: string): MediaRange | undefined {
  const [full = "", ...parameterTexts] = text.split(";").map((part) => part.trim());
  const [type = "", subtype = ""] = full.toLowerCase().split("/", 2);
  if (type === "" || subtype === "") return undefined;
  const parameters = new Map<string, string>();
  let q = 1;
  for (const parameter of parameterTexts) {
    const equals = parameter.indexOf("=");
    if (equals < 0) continue;
    const key = parameter.slice(0, equals).trim().toLowerCase();
    const value = parameter.slice(equals + 1).trim();
    if (key === "q") q = Number.parseFloat(value);
    else parameters.set(key, value);
  }
  return { type, subtype, parameters, q: Number.isNaN(q) ? 0 : q };
}

function specificity(range: MediaRange): number {
  return (range.type === "*" ? 0 : 2) + (range.subtype === "*" ? 0 : 1);
}

/** The ranges of an Accept header, most preferred first. */
export function parseAccept(header: string): MediaRange[] {
  const ranges = header
    .split(",")
    .map(parseRange)
    .filter((range): range is MediaRange => range !== undefined && range.q > 0);
  // Array.prototype.sort is stable: equal ranges keep the client's order.
  return ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a));
}

/** Whether a range names this serializer's media type (or a wildcard that covers it). */
export function rangeMatches(range: MediaRange, serializer: Serializer): boolean {
  const [type, subtype] = mediaTypeOf[serializer].split("/") as [string, string];
  if (range.type === "*" && range.subtype === "*") return true;
  return range.type === type && (range.subtype === "*" || range.subtype === subtype);
}
