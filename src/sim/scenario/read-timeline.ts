/**
 * The `timeline:` section: at a virtual time, one action (apply, delete, patch, taint, untaint,
 * cordon, uncordon, fence, unfence, registerCsiDriver, unregisterCsiDriver, scale, addNode, fault,
 * heal, write). Manifests given by `file:` are read now,
 * relative to the scenario, so a missing file or a bad manifest is reported with the step's line.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { KindName } from "../../api/objects.ts";
import { type Manifest, parseManifests } from "../../cmd/manifests.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { type ObjectRef, parseObjectRef, parseRefName } from "../conditions/object-ref.ts";
import { describeValue, Fields, isMapping } from "./fields.ts";
import { recordManifestNames } from "./manifest-names.ts";
import type { Action, ActionType, TimelineStep } from "./model.ts";
import { readNode, readTaint, taintEffects, taintFields } from "./read-cluster.ts";
import { readFaultUse } from "./read-fault.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

const actionNames: readonly ActionType[] = [
  "apply",
  "delete",
  "patch",
  "taint",
  "untaint",
  "cordon",
  "uncordon",
  "fence",
  "unfence",
  "registerCsiDriver",
  "unregisterCsiDriver",
  "scale",
  "addNode",
  "fault",
  "heal",
  "write",
];
export const stepFields = ["at", "note", ...actionNames] as const;
const applyFileFields = ["file"] as const;
export const deleteFields = ["object", "gracePeriodSeconds", "force"] as const;
export const patchFields = ["object", "merge"] as const;
export const taintStepFields = ["node", ...taintFields] as const;
export const untaintFields = ["node", "key", "effect"] as const;
export const scaleFields = ["object", "replicas"] as const;
export const writeFields = ["pod", "volume", "path", "content"] as const;
export const csiDriverStepFields = ["node", "driver"] as const;
const scalableKinds: readonly KindName[] = ["StatefulSet", "Deployment", "ReplicaSet"];

/** Where `file:` paths are resolved from: the scenario's directory. */
interface TimelineContext {
  readonly baseDir: string;
}

export function readTimeline(source: YamlSource, path: FieldPath, value: unknown, context: TimelineContext) {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) source.fail(path, `expected a list of steps, got ${describeValue(value)}`);
  let previousMs = 0;
  const steps: TimelineStep[] = [];
  value.forEach((item, index) => {
    const step = source.recover(() => readStep(source, [...path, index], item, context), undefined);
    if (step === undefined) return;
    if (step.atMs < previousMs) {
      source.report([...path, index, "at"], "steps must be in time order: this one is earlier than the step before");
    }
    previousMs = step.atMs;
    steps.push(step);
  });
  return steps;
}

function readStep(source: YamlSource, path: FieldPath, value: unknown, context: TimelineContext): TimelineStep {
  const fields: Fields = Fields.of(source, path, value, stepFields);
  if (!fields.has("at")) source.report(path, "at is required");
  // A bad time is reported, and the action is still read so its own mistakes are reported too.
  const atMs = fields.duration("at");
  const present = actionNames.filter((name) => fields.has(name));
  if (present.length !== 1) {
    const found = present.length === 0 ? "none" : present.join(" and ");
    fields.source.fail(path, `a step has exactly one action (${actionNames.join(", ")}); found ${found}`);
  }
  const type = present[0] as ActionType;
  const note = fields.string("note");
  // Unknown time: the name checks cannot say the step comes too early.
  const action = readAction(fields, type, context, atMs ?? Number.POSITIVE_INFINITY);
  if (atMs === undefined) return source.abandon();
  return { atMs, action, ...(note === undefined ? {} : { note }), line: source.lineOf(path) };
}

function readAction(step: Fields, type: ActionType, context: TimelineContext, atMs: number): Action {
  const source: YamlSource = step.source;
  const path = step.at(type);
  const value = step.raw(type);
  const useNode = (name: string, at: FieldPath) => source.names.use({ kind: "node", name, path: at, atMs });
  switch (type) {
    case "apply":
      return readApply(source, path, value, context, atMs);
    case "delete":
      return readDelete(source, path, value);
    case "patch": {
      const fields: Fields = Fields.of(source, path, value, patchFields);
      const merge = fields.requireField("merge");
      if (!isMapping(merge))
        fields.fail("merge", `expected a mapping (a JSON merge patch), got ${describeValue(merge)}`);
      return { type, object: readRef(fields, "object"), merge: { ...merge } };
    }
    case "taint": {
      const fields: Fields = Fields.of(source, path, value, taintStepFields);
      const node = fields.requiredString("node");
      useNode(node, fields.at("node"));
      const { node: _node, ...taint } = fields.values;
      return { type, node, taint: readTaint(source, path, taint) };
    }
    case "untaint": {
      const fields: Fields = Fields.of(source, path, value, untaintFields);
      const effect = fields.oneOf("effect", taintEffects);
      const node = fields.requiredString("node");
      useNode(node, fields.at("node"));
      return {
        type,
        node,
        key: fields.requiredString("key"),
        ...(effect === undefined ? {} : { effect }),
      };
    }
    case "cordon":
    case "uncordon":
    case "fence":
    case "unfence":
      if (typeof value !== "string") source.fail(path, `expected a node name, got ${describeValue(value)}`);
      useNode(value, path);
      return { type, node: value };
    case "registerCsiDriver":
    case "unregisterCsiDriver": {
      const fields: Fields = Fields.of(source, path, value, csiDriverStepFields);
      const node = fields.requiredString("node");
      const driver = fields.requiredString("driver");
      useNode(node, fields.at("node"));
      source.names.use({ kind: "driver", name: driver, path: fields.at("driver"), atMs });
      return { type, node, driver };
    }
    case "scale":
      return readScale(source, path, value);
    case "addNode":
      return { type, node: readNode(source, path, value, Number.isFinite(atMs) ? atMs : 0) };
    case "fault": {
      const use = readFaultUse(source, path, value, { allowHealAfter: true, atMs });
      return {
        type,
        fault: use.fault,
        params: use.params,
        ...(use.healAfterMs === undefined ? {} : { healAfterMs: use.healAfterMs }),
      };
    }
    case "heal": {
      const use = readFaultUse(source, path, value, { allowHealAfter: false, mustHeal: true, atMs });
      return { type, fault: use.fault, params: use.params };
    }
    case "write":
      return readWrite(source, path, value);
  }
}

function readApply(
  source: YamlSource,
  path: FieldPath,
  value: unknown,
  context: TimelineContext,
  atMs: number,
): Action {
  let manifests: string | Record<string, unknown>[];
  let origin = "inline";
  if (typeof value === "string") {
    manifests = value;
  } else if (Array.isArray(value)) {
    manifests = value.map((item, index) => {
      if (!isMapping(item)) source.fail([...path, index], `expected a manifest, got ${describeValue(item)}`);
      return { ...item };
    });
  } else {
    const fields: Fields = Fields.of(source, path, value, applyFileFields);
    const file = fields.requiredString("file");
    origin = file;
    try {
      manifests = readFileSync(resolve(context.baseDir, file), "utf8");
    } catch (error) {
      const reason = error instanceof Error && "code" in error ? String(error.code) : String(error);
      fields.fail("file", `cannot read ${resolve(context.baseDir, file)} (${reason})`);
    }
  }
  let parsed: Manifest[];
  try {
    parsed = parseManifests(manifests);
  } catch (error) {
    source.fail(path, errorMessage(error));
  }
  recordManifestNames(source, path, parsed, atMs);
  return { type: "apply", manifests, source: origin };
}

function readDelete(source: YamlSource, path: FieldPath, value: unknown): Action {
  if (typeof value === "string") return { type: "delete", object: readRefText(source, path, value), force: false };
  const fields: Fields = Fields.of(source, path, value, deleteFields);
  const gracePeriodSeconds = fields.integer("gracePeriodSeconds");
  return {
    type: "delete",
    object: readRef(fields, "object"),
    force: fields.boolean("force") ?? false,
    ...(gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
  };
}

function readScale(source: YamlSource, path: FieldPath, value: unknown): Action {
  const fields: Fields = Fields.of(source, path, value, scaleFields);
  const object = readRef(fields, "object");
  if (!scalableKinds.includes(object.kind)) {
    fields.fail("object", `${object.kind} cannot be scaled (one of ${scalableKinds.join(", ")})`);
  }
  fields.requireField("replicas");
  return { type: "scale", object, replicas: fields.integer("replicas") ?? source.abandon() };
}

function readWrite(source: YamlSource, path: FieldPath, value: unknown): Action {
  const fields: Fields = Fields.of(source, path, value, writeFields);
  const podText = fields.requiredString("pod");
  const pod = parseRefName("Pod", podText);
  if (!pod.ok || pod.ref.name === undefined || pod.ref.name.includes("*")) {
    fields.fail("pod", pod.ok ? `"${podText}" must name one pod` : pod.error);
  }
  fields.requireField("content");
  const content = fields.raw("content");
  if (typeof content !== "string") fields.fail("content", `expected text, got ${describeValue(content)}`);
  return {
    type: "write",
    namespace: pod.ref.namespace,
    pod: pod.ref.name,
    volume: fields.requiredString("volume"),
    path: fields.requiredString("path"),
    content,
  };
}

function readRef(fields: Fields, key: string): ObjectRef {
  return readRefText(fields.source, fields.at(key), fields.requiredString(key));
}

function readRefText(source: YamlSource, path: FieldPath, text: string): ObjectRef {
  const parsed = parseObjectRef(text);
  if (!parsed.ok) source.fail(path, parsed.error);
  if (parsed.ref.name?.includes("*")) source.fail(path, `"${text}" must name one object, without "*"`);
  return parsed.ref;
}
