/**
 * `docs/scenario.schema.json` describes the shapes the loader accepts: the same field names at
 * every level, the same enumerations, and the same verdict on good and bad scenarios.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { invariantNames } from "../invariants/catalogue.ts";
import { type JsonSchema, SchemaChecker } from "./json-schema-subset.ts";
import { parseScenario, topLevelFields } from "./load.ts";
import {
  clusterFields,
  csiDriverOptionTypes,
  diskFields,
  nfsExportFields,
  nfsServerFields,
  nodeFields,
  rbdFields,
  rbdImageFields,
  storageFields,
  systemdModes,
  taintEffects,
  taintFields,
} from "./read-cluster.ts";
import { eventFields, eventuallyFields, finalFields, logFields, logLevels, neverFields } from "./read-expectations.ts";
import { faultFields, healFields } from "./read-fault.ts";
import {
  csiDriverStepFields,
  deleteFields,
  patchFields,
  scaleFields,
  stepFields,
  taintStepFields,
  untaintFields,
  writeFields,
} from "./read-timeline.ts";
import { ScenarioError } from "./scenario-error.ts";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");
const schema = JSON.parse(readFileSync(join(root, "docs", "scenario.schema.json"), "utf8")) as Record<string, unknown>;
const checker = new SchemaChecker(schema as JsonSchema);

type SchemaNode = {
  properties?: Record<string, SchemaNode>;
  oneOf?: SchemaNode[];
  enum?: unknown[];
  items?: SchemaNode;
};
const defs = schema.$defs as Record<string, SchemaNode>;

function keysOf(node: SchemaNode | undefined): string[] {
  return Object.keys(node?.properties ?? {}).sort();
}

function sorted(names: readonly string[]): string[] {
  return [...names].sort();
}

function loaderAccepts(text: string, file: string): boolean {
  try {
    parseScenario(text, { file });
    return true;
  } catch (error) {
    if (error instanceof ScenarioError) return false;
    throw error;
  }
}

function scenarioFiles(): string[] {
  const directories = [join(here, "..", "runner", "fixtures"), join(root, "scenarios")];
  return directories.flatMap((directory) => {
    try {
      return readdirSync(directory)
        .filter((name) => name.endsWith(".yaml"))
        .map((name) => join(directory, name));
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return [];
      throw error;
    }
  });
}

describe("the scenario JSON Schema", () => {
  it("names the fields the loader reads, at every level", () => {
    const step = defs.step;
    const storage = defs.storage;
    const expectations = defs.expectation?.oneOf ?? [];
    assert.deepEqual(keysOf(schema as SchemaNode), sorted(topLevelFields));
    assert.deepEqual(keysOf(defs.cluster), sorted(clusterFields));
    assert.deepEqual(keysOf(defs.node), sorted(nodeFields));
    assert.deepEqual(keysOf(defs.taint), sorted(taintFields));
    assert.deepEqual(keysOf(storage), sorted(storageFields));
    assert.deepEqual(keysOf(storage?.properties?.nfs?.items), sorted(nfsServerFields));
    assert.deepEqual(keysOf(storage?.properties?.nfs?.items?.properties?.exports?.items), sorted(nfsExportFields));
    assert.deepEqual(keysOf(storage?.properties?.rbd), sorted(rbdFields));
    assert.deepEqual(keysOf(storage?.properties?.rbd?.properties?.images?.items), sorted(rbdImageFields));
    assert.deepEqual(keysOf(storage?.properties?.disks?.items), sorted(diskFields));
    assert.deepEqual(keysOf(step), sorted(stepFields));
    assert.deepEqual(keysOf(step?.properties?.delete?.oneOf?.[1]), sorted(deleteFields));
    assert.deepEqual(keysOf(step?.properties?.patch), sorted(patchFields));
    assert.deepEqual(keysOf(step?.properties?.taint), sorted(taintStepFields));
    assert.deepEqual(keysOf(step?.properties?.untaint), sorted(untaintFields));
    assert.deepEqual(keysOf(step?.properties?.scale), sorted(scaleFields));
    assert.deepEqual(keysOf(step?.properties?.write), sorted(writeFields));
    assert.deepEqual(keysOf(step?.properties?.fault), sorted(faultFields));
    assert.deepEqual(keysOf(step?.properties?.heal), sorted(healFields));
    assert.deepEqual(keysOf(step?.properties?.registerCsiDriver), sorted(csiDriverStepFields));
    assert.deepEqual(keysOf(step?.properties?.unregisterCsiDriver), sorted(csiDriverStepFields));
    assert.deepEqual(expectations.map(keysOf), [
      sorted(eventuallyFields),
      sorted(neverFields),
      sorted(neverFields).filter((key) => key === "never"),
      ["event"],
      ["log"],
      sorted(finalFields),
    ]);
    assert.deepEqual(keysOf(expectations[3]?.properties?.event), sorted(eventFields));
    assert.deepEqual(keysOf(expectations[4]?.properties?.log), sorted(logFields));
  });

  it("lists the enumerations the loader checks", () => {
    const never = defs.expectation?.oneOf?.[2]?.properties?.never;
    assert.deepEqual(never?.properties?.invariant?.enum, invariantNames());
    assert.deepEqual(defs.node?.properties?.systemd?.enum, [...systemdModes]);
    assert.deepEqual(defs.taint?.properties?.effect?.enum, [...taintEffects]);
    const log = defs.expectation?.oneOf?.[4]?.properties?.log;
    assert.deepEqual(log?.properties?.level?.enum, [...logLevels]);
    const drivers = defs.csiDriver?.oneOf ?? [];
    assert.deepEqual(
      drivers.map((driver) => [driver.properties?.name, keysOf(driver.properties?.options)]),
      Object.entries(csiDriverOptionTypes).map(([name, options]) => [{ const: name }, sorted(Object.keys(options))]),
    );
  });

  it("accepts every scenario the loader accepts", () => {
    const files = scenarioFiles();
    assert.ok(files.length >= 3, "the fixtures are there");
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      if (!loaderAccepts(text, file)) continue;
      assert.deepEqual(checker.check(parse(text)), [], file);
    }
  });

  it("rejects the shapes the loader rejects", () => {
    const bad = [
      "name: x\nunknown: 1\n",
      "seed: 1\n",
      "name: x\ntimeline:\n  - at: 5x\n    cordon: a\n",
      "name: x\ntimeline:\n  - at: 1m\n",
      "name: x\ntimeline:\n  - at: 1m\n    cordon: a\n    uncordon: a\n",
      "name: x\ncluster:\n  nodes:\n    - { name: a, zon: b }\n",
      "name: x\ncluster:\n  nodes:\n    - { name: a, systemd: init }\n",
      "name: x\nexpect:\n  - eventually: pod a is absent\n",
      "name: x\nexpect:\n  - never: { invariant: no-such-invariant }\n",
      "name: x\nexpect:\n  - event: { type: Warning }\n",
      "name: x\nexpect:\n  - final: pod a is absent\n    within: 1m\n",
      "name: x\ncluster:\n  csiDrivers:\n    - { name: fuse.csi.kvol.io, options: { attachRequired: true } }\n",
      "name: x\nexpect:\n  - log: { component: kubelet }\n",
      "name: x\nexpect:\n  - log: { component: kubelet, contains: x, level: fatal }\n",
      "name: x\ncluster:\n  nodes: [{ name: a }]\ntimeline:\n  - at: 1m\n    registerCsiDriver: { node: a }\n",
      "name: x\ncluster:\n  nodes: [{ name: a }]\ntimeline:\n  - at: 1m\n    fence: { node: a }\n",
    ];
    for (const text of bad) {
      assert.equal(loaderAccepts(text, "bad.yaml"), false, `the loader accepts:\n${text}`);
      assert.notDeepEqual(checker.check(parse(text)), [], `the schema accepts:\n${text}`);
    }
  });
});
