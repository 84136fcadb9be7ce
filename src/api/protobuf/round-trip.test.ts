/**
 * Every kind with a protobuf form goes JSON → protobuf → JSON and comes back equal: a sample of
 * each with every field of every reachable message set, the example manifests, and the zero
 * values whose presence matters (pointer fields at zero, empty structs).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import { decodeObject, encodeObject, protobufKinds } from "./envelope.ts";
import type { FieldTable } from "./field-table.ts";
import type { ProtobufSchema } from "./generate.ts";
import { messageOf } from "./generate.ts";

const schema = JSON.parse(readFileSync(new URL("./schema.json", import.meta.url), "utf8")) as ProtobufSchema;
const maxSampleDepth = 12;

type Json = Record<string, unknown>;

class SampleBuilder {
  private counter = 0;

  constructor(private readonly messages: FieldTable) {}

  private scalar(type: string): unknown {
    this.counter++;
    switch (type) {
      case "string":
        return `s${this.counter}`;
      case "bool":
        return true;
      case "int32":
        return this.counter % 2 === 0 ? this.counter : -this.counter;
      case "int64":
        return 2 ** 40 + this.counter;
      case "float64":
        return this.counter + 0.5;
      case "bytes":
        return Buffer.from(`bytes ${this.counter}`).toString("base64");
      case "Time":
        return "2026-11-21T16:05:00Z";
      case "MicroTime":
        return "2026-11-21T16:05:00.123456Z";
      case "Quantity":
        return `${this.counter}Gi`;
      case "IntOrString":
        return this.counter % 2 === 0 ? this.counter : `port-${this.counter}`;
      case "FieldsV1":
        return { "f:metadata": { "f:labels": {} } };
      case "RawExtension":
        return { kind: "Pod", apiVersion: "v1" };
      default:
        return undefined;
    }
  }

  private value(type: string, depth: number): unknown {
    const message = messageOf(type);
    return message === undefined ? this.scalar(type) : this.message(message, depth + 1);
  }

  message(name: string, depth = 0): Json | undefined {
    if (depth > maxSampleDepth) return undefined;
    const object: Json = {};
    for (const [json, , rawType, flag] of this.messages[name] ?? []) {
      const type = rawType.replace(/^\*/, "");
      if (flag === "inline") {
        Object.assign(object, this.message(messageOf(type) ?? "", depth));
        continue;
      }
      const element = type.replace(/^(\[\]|map\[string\])\*?/, "");
      const value = this.value(element, depth);
      if (value === undefined) continue;
      object[json] = type.startsWith("[]") ? [value] : type.startsWith("map[string]") ? { key: value } : value;
    }
    return object;
  }
}

/** Every leaf of a JSON value by its path (`spec.volumes.0.name`). */
function leaves(value: unknown, path = "", into = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Json);
    if (entries.length === 0) into.set(path, Array.isArray(value) ? [] : {});
    for (const [key, inner] of entries) leaves(inner, path === "" ? key : `${path}.${key}`, into);
  } else into.set(path, value);
  return into;
}

function roundTrip(object: Json): Json {
  return decodeObject(encodeObject(object));
}

describe("protobuf round trip", () => {
  it("brings back every kind with every field set", () => {
    const builder = new SampleBuilder(schema.messages);
    const kinds = protobufKinds();
    assert.ok(kinds.length >= 30, `expected every served kind and its list, got ${kinds.length}`);
    for (const { apiVersion, kind } of kinds) {
      const message = schema.kinds[`${apiVersion}/${kind}`] ?? "";
      const sample = { apiVersion, kind, ...builder.message(message) };
      assert.deepEqual(roundTrip(sample), sample, `${apiVersion} ${kind}`);
    }
  });

  it("brings back every object of the example manifests", () => {
    const examples = new URL("../../../examples/", import.meta.url);
    let count = 0;
    for (const file of readdirSync(examples).filter((name) => name.endsWith(".yaml"))) {
      for (const document of parseAllDocuments(readFileSync(new URL(file, examples), "utf8"))) {
        const object = document.toJS() as Json | null;
        if (object === null) continue;
        // Equal, but for fields a manifest sets to their zero value that Go's JSON leaves out (`readOnly: false`).
        const sent = leaves(object);
        const back = leaves(roundTrip(object));
        const what = `${file}: ${object.kind} ${JSON.stringify(object.metadata)}`;
        for (const [path, value] of back) assert.deepEqual(value, sent.get(path), `${what}: ${path}`);
        for (const [path, value] of sent) {
          if (!back.has(path)) assert.ok(value === false || value === 0 || value === "", `${what}: ${path} lost`);
        }
        count++;
      }
    }
    assert.ok(count >= 10, `only ${count} example objects`);
  });

  it("keeps pointer fields set to zero and empty structs, and drops value fields at zero as Go's JSON does", () => {
    const claim = {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "static" },
      spec: { storageClassName: "", accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    };
    assert.deepEqual(roundTrip(claim), claim, 'storageClassName: "" (no dynamic provisioning) must survive');
    const deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d", generation: 0 },
      spec: {
        replicas: 0,
        paused: false,
        selector: { matchLabels: { app: "d" } },
        template: {
          metadata: { labels: { app: "d" } },
          spec: {
            containers: [{ name: "c", image: "busybox", securityContext: { runAsUser: 0 } }],
            volumes: [{ name: "scratch", emptyDir: {} }],
          },
        },
      },
    };
    const back = roundTrip(deployment) as typeof deployment;
    assert.equal(back.spec.replicas, 0);
    assert.equal("paused" in back.spec, false, "paused is a plain bool with omitempty");
    assert.equal("generation" in back.metadata, false);
    assert.equal(back.spec.template.spec.containers[0]?.securityContext.runAsUser, 0);
    assert.deepEqual(back.spec.template.spec.volumes[0], { name: "scratch", emptyDir: {} });
  });

  it("carries times, quantities, int-or-strings and negative numbers", () => {
    const lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l", creationTimestamp: "1969-12-31T23:59:58Z" },
      spec: { holderIdentity: "n", leaseDurationSeconds: 40, renewTime: "2026-11-21T16:05:00.000123Z" },
    };
    assert.deepEqual(roundTrip(lease), lease);
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        containers: [
          {
            name: "c",
            resources: { limits: { memory: "128Mi", cpu: "500m" } },
            livenessProbe: { httpGet: { port: "http" }, tcpSocket: { port: 8080 } },
          },
        ],
        securityContext: { runAsGroup: -1 },
      },
    };
    assert.deepEqual(roundTrip(pod), pod);
  });
});
