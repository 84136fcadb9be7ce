/**
 * The `cluster:` section of a scenario: nodes, storage backends, StorageClasses, CSI drivers and
 * timer overrides (`docs/scenarios.md`). Each `*Fields` list is the complete set of keys accepted;
 * the JSON Schema test checks `docs/scenario.schema.json` against them.
 */
import { DEFAULT_TIMERS, type Timers } from "../../api/timers.ts";
import type { ClusterCsiDriver } from "../../cmd/cluster.ts";
import { fenceAfterMinimumMs } from "../../controllers/nodefencing/constants.ts";
import {
  diskDriverName,
  fuseDriverName,
  hostpathDriverName,
  mockDriverName,
} from "../../csi/drivers/common/constants.ts";
import { closestNames } from "./closest-names.ts";
import { describeValue, Fields, isMapping, readDuration } from "./fields.ts";
import type { ClusterSpec, DiskSpec, NfsServerSpec, NodeSpec, RbdImageSpec, StorageSpec, Taint } from "./model.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

export const clusterFields = ["nodes", "storage", "storageClasses", "csiDrivers", "timers", "fenceAfter"] as const;
export const nodeFields = [
  "name",
  "zone",
  "labels",
  "taints",
  "withoutCommands",
  "systemd",
  "utilLinux",
  "repairCorruptedCsiMounts",
] as const;
export const taintFields = ["key", "value", "effect"] as const;
export const storageFields = ["nfs", "rbd", "disks", "buckets"] as const;
export const nfsServerFields = ["server", "exports"] as const;
export const nfsExportFields = ["path", "size"] as const;
export const rbdFields = ["images"] as const;
export const rbdImageFields = ["pool", "image", "size"] as const;
export const diskFields = ["id", "size", "zone", "multiAttach"] as const;
const csiDriverFields = ["name", "options", "csiDriverSpec"] as const;
export const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
export const systemdModes = ["pid1", "not-pid1", "absent"] as const;
const utilLinuxVersions = ["2.23", "2.38"] as const;

/** The options each bundled driver takes from a scenario, and their YAML types. */
export const csiDriverOptionTypes: Readonly<
  Record<string, Readonly<Record<string, "boolean" | "integer" | "mapping" | "quantity">>>
> = {
  [fuseDriverName]: { reestablishOnStart: "boolean", stageUnstage: "boolean" },
  [hostpathDriverName]: {
    nodeLocalTopology: "boolean",
    attachRequired: "boolean",
    maxVolumesPerNode: "integer",
    capacityLimit: "quantity",
  },
  [mockDriverName]: { capabilities: "mapping", topology: "mapping", maxVolumesPerNode: "integer" },
  [diskDriverName]: { maxVolumesPerNode: "integer", capacityLimit: "quantity" },
};

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function readCluster(source: YamlSource, path: FieldPath, value: unknown): ClusterSpec {
  if (value === undefined || value === null) {
    return { nodes: [], storage: emptyStorage(), storageClasses: [], csiDrivers: [], timers: {} };
  }
  const fields: Fields = Fields.of(source, path, value, clusterFields);
  const nodes = fields.list("nodes", (item, itemPath) => readNode(source, itemPath, item));
  const seen = new Set<string>();
  nodes.forEach((node, index) => {
    if (seen.has(node.name))
      fields.source.report([...fields.at("nodes"), index, "name"], `node ${node.name} is listed twice`);
    seen.add(node.name);
  });
  return {
    nodes,
    storage: fields.has("storage") ? readStorage(source, fields.at("storage"), fields.raw("storage")) : emptyStorage(),
    storageClasses: fields.list("storageClasses", (item, itemPath) => readStorageClass(source, itemPath, item)),
    csiDrivers: fields.list("csiDrivers", (item, itemPath) => readCsiDriver(source, itemPath, item)),
    timers: fields.has("timers") ? readTimers(source, fields.at("timers"), fields.raw("timers")) : {},
    ...fenceAfterOf(fields),
  };
}

/** `fenceAfter: 15s`: kvol's node fencing, cluster-wide (`--fence-after`); 10s at least. */
function fenceAfterOf(fields: Fields): { fenceAfterMs?: number } {
  const fenceAfterMs = fields.duration("fenceAfter");
  if (fenceAfterMs === undefined) return {};
  if (fenceAfterMs < fenceAfterMinimumMs) {
    fields.fail("fenceAfter", "must be at least 10s (a live kubelet renews its Lease every 10s)");
  }
  return { fenceAfterMs };
}

/** Reads a node of `cluster.nodes` (`fromMs` 0) or of an `addNode` step at `fromMs`. */
export function readNode(source: YamlSource, path: FieldPath, value: unknown, fromMs = 0): NodeSpec {
  const fields: Fields = Fields.of(source, path, value, nodeFields);
  const name = fields.requiredString("name");
  source.names.declare("node", name, fromMs);
  if (!dnsLabel.test(name)) fields.fail("name", `"${name}" is not a node name (lower-case letters, digits and "-")`);
  const systemd = fields.oneOf("systemd", systemdModes);
  const utilLinux = fields.oneOf("utilLinux", utilLinuxVersions);
  const labels = fields.stringMap("labels");
  const zone = fields.string("zone");
  const withoutCommands = fields.stringList("withoutCommands");
  const repair = fields.boolean("repairCorruptedCsiMounts");
  return {
    name,
    ...(zone === undefined ? {} : { zone }),
    ...(labels === undefined ? {} : { labels }),
    ...(fields.has("taints") ? { taints: fields.list("taints", (item, at) => readTaint(source, at, item)) } : {}),
    ...(withoutCommands === undefined ? {} : { withoutCommands }),
    ...(systemd === undefined ? {} : { systemd }),
    ...(utilLinux === undefined ? {} : { utilLinux }),
    ...(repair === undefined ? {} : { repairCorruptedCsiMounts: repair }),
  };
}

export function readTaint(source: YamlSource, path: FieldPath, value: unknown): Taint {
  const fields: Fields = Fields.of(source, path, value, taintFields);
  const key = fields.requiredString("key");
  fields.requireField("effect");
  const effect = fields.oneOf("effect", taintEffects) as Taint["effect"];
  const taintValue = fields.scalarText("value");
  return { key, effect, ...(taintValue === undefined ? {} : { value: taintValue }) };
}

function emptyStorage(): StorageSpec {
  return { nfs: [], rbdImages: [], disks: [], buckets: [] };
}

function readStorage(source: YamlSource, path: FieldPath, value: unknown): StorageSpec {
  const fields: Fields = Fields.of(source, path, value, storageFields);
  const rbd = fields.has("rbd") ? Fields.of(source, fields.at("rbd"), fields.raw("rbd"), rbdFields) : undefined;
  return {
    nfs: fields.list("nfs", (item, itemPath) => readNfsServer(source, itemPath, item)),
    rbdImages: rbd?.list("images", (item, itemPath) => readRbdImage(source, itemPath, item)) ?? [],
    disks: fields.list("disks", (item, itemPath) => readDisk(source, itemPath, item)),
    buckets: fields.stringList("buckets") ?? [],
  };
}

function readNfsServer(source: YamlSource, path: FieldPath, value: unknown): NfsServerSpec {
  const fields: Fields = Fields.of(source, path, value, nfsServerFields);
  const server = fields.requiredString("server");
  const exports = fields.list("exports", (item, itemPath) => {
    const exportFields: Fields = Fields.of(source, itemPath, item, nfsExportFields);
    const exportPath = exportFields.requiredString("path");
    if (!exportPath.startsWith("/")) exportFields.fail("path", `"${exportPath}" must be an absolute path`);
    const sizeBytes = exportFields.quantityBytes("size");
    return { path: exportPath, ...(sizeBytes === undefined ? {} : { sizeBytes }) };
  });
  if (exports.length === 0) fields.fail("exports", "an NFS server needs at least one export");
  return { server, exports };
}

function readRbdImage(source: YamlSource, path: FieldPath, value: unknown): RbdImageSpec {
  const fields: Fields = Fields.of(source, path, value, rbdImageFields);
  return {
    pool: fields.requiredString("pool"),
    image: fields.requiredString("image"),
    sizeBytes: fields.requiredQuantityBytes("size"),
  };
}

function readDisk(source: YamlSource, path: FieldPath, value: unknown): DiskSpec {
  const fields: Fields = Fields.of(source, path, value, diskFields);
  const zone = fields.string("zone");
  const multiAttach = fields.boolean("multiAttach");
  return {
    id: fields.requiredString("id"),
    sizeBytes: fields.requiredQuantityBytes("size"),
    ...(zone === undefined ? {} : { zone }),
    ...(multiAttach === undefined ? {} : { multiAttach }),
  };
}

function readStorageClass(source: YamlSource, path: FieldPath, value: unknown): Record<string, unknown> {
  if (!isMapping(value)) source.fail(path, `expected a StorageClass manifest, got ${describeValue(value)}`);
  if (value.kind !== undefined && value.kind !== "StorageClass") {
    source.fail([...path, "kind"], `expected StorageClass, got ${describeValue(value.kind)}`);
  }
  const metadata = value.metadata;
  if (!isMapping(metadata) || typeof metadata.name !== "string")
    source.fail([...path, "metadata", "name"], "is required");
  source.names.declare("storageClass", metadata.name);
  if (typeof value.provisioner !== "string") source.fail([...path, "provisioner"], "is required");
  return { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", ...value };
}

function readCsiDriver(source: YamlSource, path: FieldPath, value: unknown): ClusterCsiDriver {
  const fields: Fields = Fields.of(source, path, value, csiDriverFields);
  const name = fields.requiredString("name");
  source.names.declare("driver", name);
  const optionTypes = csiDriverOptionTypes[name];
  if (optionTypes === undefined) {
    fields.fail(
      "name",
      `"${name}" is not a bundled CSI driver (one of ${Object.keys(csiDriverOptionTypes).join(", ")})`,
    );
  }
  const options: Record<string, unknown> = {};
  if (fields.has("options")) {
    const optionFields: Fields = Fields.of(
      source,
      fields.at("options"),
      fields.raw("options"),
      Object.keys(optionTypes),
    );
    for (const [key, type] of Object.entries(optionTypes)) {
      if (type === "quantity") {
        // `capacityLimit: 10Gi` is the driver's `capacityLimitBytes` (what GetCapacity reports at most).
        const bytes = optionFields.quantityBytes(key);
        if (bytes !== undefined) options[`${key}Bytes`] = bytes;
        continue;
      }
      const read =
        type === "boolean" ? optionFields.boolean(key) : type === "integer" ? optionFields.integer(key) : undefined;
      const optionValue = type === "mapping" ? optionFields.raw(key) : read;
      if (type === "mapping" && optionValue !== undefined && !isMapping(optionValue)) {
        optionFields.fail(key, `expected a mapping, got ${describeValue(optionValue)}`);
      }
      if (optionValue !== undefined) options[key] = optionValue;
    }
  }
  const spec = fields.raw("csiDriverSpec");
  if (spec !== undefined && !isMapping(spec))
    fields.fail("csiDriverSpec", `expected a mapping, got ${describeValue(spec)}`);
  // The option names and types were checked against the driver's table above.
  return { name, options, ...(spec === undefined ? {} : { csiDriverSpec: spec }) } as ClusterCsiDriver;
}

function readTimers(source: YamlSource, path: FieldPath, value: unknown): Partial<Timers> {
  if (!isMapping(value)) source.fail(path, `expected a mapping of timer names to values, got ${describeValue(value)}`);
  const timers: Record<string, number> = {};
  const names = Object.keys(DEFAULT_TIMERS);
  for (const [name, raw] of Object.entries(value)) {
    const at = [...path, name];
    if (!names.includes(name)) {
      source.fail(at, `"${name}" is not a timer (did you mean ${closestNames(name, names).join(", ")}?)`);
    }
    timers[name] = readTimerValue(source, at, name, raw);
  }
  return timers as Partial<Timers>;
}

/** `…Ms` timers take a duration; `…Seconds` a duration or seconds; the others a whole number. */
function readTimerValue(source: YamlSource, path: FieldPath, name: string, raw: unknown): number {
  if (name.endsWith("Ms")) return readDuration(source, path, raw);
  if (name.endsWith("Seconds")) {
    if (typeof raw === "number" && Number.isInteger(raw) && raw >= 0) return raw;
    return Math.round(readDuration(source, path, raw) / 1_000);
  }
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0) {
    source.fail(path, `expected a whole number, got ${describeValue(raw)}`);
  }
  return raw;
}
