/**
 * Writes src/api/protobuf/field-table.json, the one table the protobuf schema is generated from:
 * for every Go API struct of the packages below, each field's JSON name, protobuf field number and
 * type, read from the struct tags of a checkout of k8s.io/api and k8s.io/apimachinery. Run it when
 * a newer Kubernetes adds fields or kinds; then run scripts/generate-protobuf-schema.ts.
 *
 *   node --import tsx scripts/extract-protobuf-fields.ts <k8s.io/api dir> <k8s.io/apimachinery dir>
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FieldTable, fieldTablePath, type TableField } from "../src/api/protobuf/field-table.ts";
import { errorMessage } from "../src/runtime/error-message.ts";

/** Go import path → OpenAPI definition prefix. */
const packages: Readonly<Record<string, string>> = {
  "k8s.io/api/core/v1": "io.k8s.api.core.v1",
  "k8s.io/api/apps/v1": "io.k8s.api.apps.v1",
  "k8s.io/api/storage/v1": "io.k8s.api.storage.v1",
  "k8s.io/api/coordination/v1": "io.k8s.api.coordination.v1",
  "k8s.io/api/batch/v1": "io.k8s.api.batch.v1",
  "k8s.io/api/policy/v1": "io.k8s.api.policy.v1",
  "k8s.io/api/authorization/v1": "io.k8s.api.authorization.v1",
  "k8s.io/api/authentication/v1": "io.k8s.api.authentication.v1",
  "k8s.io/api/autoscaling/v1": "io.k8s.api.autoscaling.v1",
  "k8s.io/api/rbac/v1": "io.k8s.api.rbac.v1",
  "k8s.io/apimachinery/pkg/apis/meta/v1": "io.k8s.apimachinery.pkg.apis.meta.v1",
};

/** Types whose wire form is not their Go struct: they marshal themselves. */
const specialTypes: Readonly<Record<string, string>> = {
  "io.k8s.apimachinery.pkg.apis.meta.v1.Time": "Time",
  "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime": "MicroTime",
  "io.k8s.apimachinery.pkg.apis.meta.v1.Duration": "Duration",
  "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": "FieldsV1",
  "io.k8s.apimachinery.pkg.api.resource.Quantity": "Quantity",
  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": "IntOrString",
  "io.k8s.apimachinery.pkg.runtime.RawExtension": "RawExtension",
  "io.k8s.apimachinery.pkg.types.UID": "string",
};

const otherPackages: Readonly<Record<string, string>> = {
  "k8s.io/apimachinery/pkg/api/resource": "io.k8s.apimachinery.pkg.api.resource",
  "k8s.io/apimachinery/pkg/util/intstr": "io.k8s.apimachinery.pkg.util.intstr",
  "k8s.io/apimachinery/pkg/runtime": "io.k8s.apimachinery.pkg.runtime",
  "k8s.io/apimachinery/pkg/types": "io.k8s.apimachinery.pkg.types",
};

interface GoField {
  goType: string;
  json: string;
  omitempty: boolean;
  number: number;
  embedded: boolean;
}

interface GoPackage {
  prefix: string;
  structs: Map<string, GoField[]>;
  /** Named non-struct types: `type ResourceList map[ResourceName]resource.Quantity`. */
  named: Map<string, string>;
  /** Import alias → definition prefix, per struct (files differ in imports). */
  aliases: Map<string, Map<string, string>>;
}

function importAliases(source: string): Map<string, string> {
  const aliases = new Map<string, string>();
  const block = /import \(([\s\S]*?)\)/.exec(source)?.[1] ?? "";
  for (const line of block.split("\n")) {
    const match = /^\s*(\w+)?\s*"([^"]+)"/.exec(line);
    if (match === null) continue;
    const path = match[2] ?? "";
    const prefix = packages[path] ?? otherPackages[path];
    if (prefix === undefined) continue;
    aliases.set(match[1] ?? path.split("/").at(-1) ?? "", prefix);
  }
  return aliases;
}

function parseTag(tag: string, name: string): { value: string } | undefined {
  const match = new RegExp(`${name}:"([^"]*)"`).exec(tag);
  return match === null ? undefined : { value: match[1] ?? "" };
}

function parseField(line: string): GoField | undefined {
  const named = /^\t(\w+)\s+(\S+)\s+`([^`]*)`/.exec(line);
  const embedded = /^\t(\S+)\s+`([^`]*)`/.exec(line);
  const goType = named !== null ? (named[2] ?? "") : (embedded?.[1] ?? "");
  const tag = named !== null ? (named[3] ?? "") : (embedded?.[2] ?? "");
  if (named === null && embedded === null) return undefined;
  const protobuf = parseTag(tag, "protobuf");
  if (protobuf === undefined || protobuf.value === "-") return undefined;
  const [, number] = protobuf.value.split(",");
  const json = parseTag(tag, "json")?.value ?? "";
  const [jsonName = "", ...options] = json.split(",");
  return {
    goType,
    json: jsonName === "-" ? "" : jsonName,
    omitempty: options.includes("omitempty"),
    number: Number(number),
    embedded: named === null,
  };
}

function readPackage(dir: string, files: readonly string[], prefix: string): GoPackage {
  const pkg: GoPackage = { prefix, structs: new Map(), named: new Map(), aliases: new Map() };
  for (const file of files) {
    const source = readFileSync(join(dir, file), "utf8");
    const aliases = importAliases(source);
    let current: GoField[] | undefined;
    for (const line of source.split("\n")) {
      const struct = /^type (\w+) struct \{/.exec(line);
      if (struct !== null) {
        current = [];
        pkg.structs.set(struct[1] ?? "", current);
        pkg.aliases.set(struct[1] ?? "", aliases);
        continue;
      }
      if (current !== undefined) {
        if (line.startsWith("}")) current = undefined;
        else {
          const field = parseField(line);
          if (field !== undefined) current.push(field);
        }
        continue;
      }
      const named = /^type (\w+) =? ?([^{\s][^\s]*)\s*$/.exec(line);
      if (named !== null) {
        pkg.named.set(named[1] ?? "", named[2] ?? "");
        pkg.aliases.set(named[1] ?? "", aliases);
      }
    }
  }
  return pkg;
}

const scalars = new Set(["string", "bool", "int32", "int64", "float64", "int"]);

/** The Go type as the table spells it: scalars, `bytes`, `*T`, `[]T`, `map[string]T`, qualified names. */
function normalize(all: ReadonlyMap<string, GoPackage>, pkg: GoPackage, owner: string, goType: string): string {
  if (goType.startsWith("*")) return `*${normalize(all, pkg, owner, goType.slice(1))}`;
  if (goType === "[]byte") return "bytes";
  if (goType.startsWith("[]")) return `[]${normalize(all, pkg, owner, goType.slice(2))}`;
  if (goType.startsWith("map[")) {
    const close = goType.indexOf("]");
    return `map[string]${normalize(all, pkg, owner, goType.slice(close + 1))}`;
  }
  if (scalars.has(goType)) return goType === "int" ? "int64" : goType;
  const dot = goType.indexOf(".");
  const qualified =
    dot < 0
      ? `${pkg.prefix}.${goType}`
      : `${pkg.aliases.get(owner)?.get(goType.slice(0, dot)) ?? `?${goType.slice(0, dot)}`}.${goType.slice(dot + 1)}`;
  const special = specialTypes[qualified];
  if (special !== undefined) return special;
  const target = all.get(qualified.slice(0, qualified.lastIndexOf(".")));
  const name = qualified.slice(qualified.lastIndexOf(".") + 1);
  const underlying = target?.named.get(name);
  if (target !== undefined && underlying !== undefined) return normalize(all, target, name, underlying);
  if (target === undefined || !target.structs.has(name)) throw new Error(`unknown Go type ${goType} in ${owner}`);
  return qualified;
}

/** A field whose type lives in a package outside the table (alpha APIs) is left out, and said so. */
function typeOrSkip(
  all: ReadonlyMap<string, GoPackage>,
  pkg: GoPackage,
  owner: string,
  field: GoField,
): string | undefined {
  try {
    return normalize(all, pkg, owner, field.goType);
  } catch (error) {
    console.warn(`skipping ${pkg.prefix}.${owner}.${field.json}: ${errorMessage(error)}`);
    return undefined;
  }
}

/** The repository's formatter owns JSON layout too; without this `biome check` would flag the file. */
function formatLikeTheRepository(path: string): void {
  const result = spawnSync("npx", ["biome", "format", "--write", path], { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`biome format ${path} failed with exit status ${result.status}`);
}

function main(): void {
  const [apiDir, machineryDir] = process.argv.slice(2);
  if (apiDir === undefined || machineryDir === undefined) {
    console.error("usage: extract-protobuf-fields.ts <k8s.io/api dir> <k8s.io/apimachinery dir>");
    process.exit(2);
  }
  const all = new Map<string, GoPackage>();
  for (const [path, prefix] of Object.entries(packages)) {
    const isMeta = path.startsWith("k8s.io/apimachinery");
    const dir = isMeta ? join(machineryDir, "pkg/apis/meta/v1") : join(apiDir, path.replace("k8s.io/api/", ""));
    all.set(prefix, readPackage(dir, isMeta ? ["types.go", "watch.go"] : ["types.go"], prefix));
  }
  const table: FieldTable = {};
  for (const pkg of all.values()) {
    for (const [name, fields] of [...pkg.structs].sort(([a], [b]) => a.localeCompare(b))) {
      const qualified = `${pkg.prefix}.${name}`;
      if (fields.length === 0 || specialTypes[qualified] !== undefined) continue;
      table[qualified] = fields.flatMap((field): TableField[] => {
        const type = typeOrSkip(all, pkg, name, field);
        if (type === undefined) return [];
        // An embedded struct with a JSON name (metav1.ObjectMeta as `metadata`) is an ordinary field.
        const inline = field.embedded && field.json === "";
        const flags = inline ? "inline" : field.omitempty ? "omitempty" : "";
        return [[field.json, field.number, type, ...(flags === "" ? [] : [flags])] as TableField];
      });
    }
  }
  const path = fileURLToPath(fieldTablePath);
  writeFileSync(path, `${JSON.stringify(table)}\n`);
  formatLikeTheRepository(path);
  console.log(`wrote ${path}: ${Object.keys(table).length} messages`);
}

main();
