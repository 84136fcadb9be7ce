/**
 * The objects of `-f` arguments, as kubectl reads them: files, directories (their .yaml, .yml and
 * .json files in name order; `-R` descends), `-` for stdin, several YAML documents per file and
 * `kind: List` unpacked. Each object remembers where it came from, for messages.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { KObject } from "../../api/objects.ts";
import type { ClientIo } from "./client-io.ts";
import { UsageError } from "./resource-args.ts";

const manifestExtensions = [".yaml", ".yml", ".json"];

export interface SourcedObject {
  object: KObject;
  /** `examples/pod.yaml`, `examples/pod.yaml (document 2)`, `STDIN`. */
  source: string;
}

function isObject(value: unknown): value is KObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function filesOf(path: string, recursive: boolean): string[] {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (error) {
    throw new UsageError(`the path "${path}" does not exist (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (!stats.isDirectory()) return [path];
  const entries = readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  return entries.flatMap((entry) => {
    const child = join(path, entry.name);
    if (entry.isDirectory()) return recursive ? filesOf(child, true) : [];
    return manifestExtensions.some((ext) => entry.name.endsWith(ext)) ? [child] : [];
  });
}

/** The objects of one file's text. */
function objectsOfText(text: string, name: string): SourcedObject[] {
  const documents = parseAllDocuments(text);
  const found: SourcedObject[] = [];
  documents.forEach((document, index) => {
    const where = documents.length > 1 ? `${name} (document ${index + 1})` : name;
    const problem = document.errors[0];
    if (problem !== undefined) throw new UsageError(`${where} is not valid YAML: ${problem.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) return;
    if (!isObject(value)) throw new UsageError(`${where} is not an object with apiVersion, kind and metadata`);
    const items = value.kind === "List" && Array.isArray(value.items) ? value.items : [value];
    for (const item of items) {
      if (!isObject(item)) throw new UsageError(`${where} has a list item that is not an object`);
      found.push({ object: item, source: where });
    }
  });
  return found;
}

export async function readManifests(
  paths: readonly string[],
  recursive: boolean,
  io: ClientIo,
): Promise<SourcedObject[]> {
  if (paths.length === 0)
    throw new UsageError("must give at least one -f FILENAME (a file, a directory or - for stdin)");
  const objects: SourcedObject[] = [];
  for (const path of paths) {
    if (path === "-") {
      objects.push(...objectsOfText(await io.readStdin(), "STDIN"));
      continue;
    }
    for (const file of filesOf(path, recursive)) objects.push(...objectsOfText(readFileSync(file, "utf8"), file));
  }
  if (objects.length === 0) throw new UsageError(`no objects passed to apply in ${paths.join(", ")}`);
  return objects;
}
