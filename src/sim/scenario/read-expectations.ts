/**
 * The `expect:` section: `eventually` a condition within a duration, `never` a condition or an
 * invariant, an `event`, and the `final` state. Conditions are parsed here, so a typo is reported
 * with the line and the column it is at.
 */
import type { Condition } from "../conditions/ast.ts";
import { formatObjectRef, parseObjectRef } from "../conditions/object-ref.ts";
import { parseConditionAndNames } from "../conditions/parse.ts";
import { ConditionSyntaxError } from "../conditions/tokens.ts";
import { invariantNames } from "../invariants/catalogue.ts";
import { formatDuration } from "./duration.ts";
import { describeValue, Fields } from "./fields.ts";
import type { EventMatcher, Expectation, ExpectationKind, LogMatcher } from "./model.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

const expectationKeys = ["eventually", "never", "event", "log", "final"] as const;
export const eventuallyFields = ["eventually", "within", "after"] as const;
export const neverFields = ["never", "after", "until"] as const;
const neverInvariantFields = ["invariant"] as const;
export const eventFields = ["reason", "type", "object", "message", "within", "after", "count"] as const;
export const finalFields = ["final"] as const;
export const logFields = ["component", "node", "contains", "level", "within", "after", "count"] as const;
export const logLevels = ["debug", "info", "warn", "error"] as const;
const eventTypes = ["Normal", "Warning"] as const;

export function readExpectations(source: YamlSource, path: FieldPath, value: unknown): Expectation[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) source.fail(path, `expected a list of expectations, got ${describeValue(value)}`);
  const expectations: Expectation[] = [];
  value.forEach((item, index) => {
    const expectation = source.recover(() => readExpectation(source, [...path, index], item), undefined);
    if (expectation !== undefined) expectations.push(expectation);
  });
  return expectations;
}

function readExpectation(source: YamlSource, path: FieldPath, value: unknown): Expectation {
  const kind = expectationKind(source, path, value);
  const line = source.lineOf(path);
  switch (kind) {
    case "eventually": {
      const fields: Fields = Fields.of(source, path, value, eventuallyFields);
      const text = fields.requiredString("eventually");
      const withinMs = fields.requiredDuration("within");
      const afterMs = fields.duration("after") ?? 0;
      const condition = readCondition(fields, "eventually");
      const after = afterMs > 0 ? ` after ${formatDuration(afterMs)}` : "";
      return {
        kind,
        condition,
        afterMs,
        withinMs,
        line,
        text: `eventually ${text} within ${formatDuration(withinMs)}${after}`,
      };
    }
    case "never":
      return readNever(source, path, value, line);
    case "event":
      return readEvent(source, path, value, line);
    case "log":
      return readLog(source, path, value, line);
    case "final": {
      const fields: Fields = Fields.of(source, path, value, finalFields);
      const text = fields.requiredString("final");
      return { kind, condition: readCondition(fields, "final"), line, text: `final ${text}` };
    }
  }
}

function expectationKind(source: YamlSource, path: FieldPath, value: unknown): (typeof expectationKeys)[number] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    source.fail(path, `expected an expectation (${expectationKeys.join(", ")}), got ${describeValue(value)}`);
  }
  const kinds = expectationKeys.filter((key) => key in value);
  if (kinds.length !== 1) {
    const found = kinds.length === 0 ? "none" : kinds.join(" and ");
    source.fail(path, `an expectation has exactly one of ${expectationKeys.join(", ")}; found ${found}`);
  }
  return kinds[0] as (typeof expectationKeys)[number];
}

function readNever(source: YamlSource, path: FieldPath, value: unknown, line: number): Expectation {
  const fields: Fields = Fields.of(source, path, value, neverFields);
  const raw = fields.requireField("never");
  if (typeof raw !== "string") {
    const invariant = Fields.of(source, fields.at("never"), raw, neverInvariantFields).requiredString("invariant");
    if (!invariantNames().includes(invariant)) {
      const known = invariantNames().join(", ");
      source.fail([...fields.at("never"), "invariant"], `"${invariant}" is not an invariant (known: ${known})`);
    }
    if (fields.has("after") || fields.has("until")) {
      fields.fail("never", "an invariant is checked for the whole run; after and until do not apply");
    }
    return { kind: "never-violated", invariant, line, text: `never violated: ${invariant}` };
  }
  const afterMs = fields.duration("after") ?? 0;
  const untilMs = fields.duration("until");
  if (untilMs !== undefined && untilMs <= afterMs) fields.fail("until", "must be later than after");
  const window = [
    afterMs > 0 ? `after ${formatDuration(afterMs)}` : "",
    untilMs === undefined ? "" : `until ${formatDuration(untilMs)}`,
  ]
    .filter((part) => part !== "")
    .join(", ");
  return {
    kind: "never",
    condition: readCondition(fields, "never"),
    afterMs,
    ...(untilMs === undefined ? {} : { untilMs }),
    line,
    text: `never ${raw}${window === "" ? "" : ` (${window})`}`,
  };
}

function readEvent(source: YamlSource, path: FieldPath, value: unknown, line: number): Expectation {
  const outer: Fields = Fields.of(source, path, value, ["event"]);
  const fields: Fields = Fields.of(source, outer.at("event"), outer.raw("event"), eventFields);
  const reason = fields.string("reason");
  const type = fields.oneOf("type", eventTypes);
  const message = fields.scalarText("message");
  const objectText = fields.string("object");
  const parsed = objectText === undefined ? undefined : parseObjectRef(objectText, { kindAlone: true });
  if (parsed !== undefined && !parsed.ok) fields.fail("object", parsed.error);
  const object = parsed?.ok ? parsed.ref : undefined;
  if (reason === undefined && message === undefined)
    fields.fail("reason", "an event expectation needs a reason or a message");
  const matcher: EventMatcher = {
    ...(reason === undefined ? {} : { reason }),
    ...(type === undefined ? {} : { type }),
    ...(object === undefined ? {} : { object }),
    ...(message === undefined ? {} : { messageContains: message }),
  };
  const afterMs = fields.duration("after") ?? 0;
  const withinMs = fields.duration("within");
  const count = fields.integer("count");
  const words = [
    "event",
    type ?? "",
    reason ?? "",
    object === undefined ? "" : `on ${formatObjectRef(object)}`,
    message === undefined ? "" : `"${message}"`,
    count === undefined ? "" : `count ${count}`,
    afterMs > 0 ? `after ${formatDuration(afterMs)}` : "",
    withinMs === undefined ? "" : `within ${formatDuration(withinMs)}`,
  ];
  return {
    kind: "event",
    matcher,
    afterMs,
    ...(withinMs === undefined ? {} : { withinMs }),
    ...(count === undefined ? {} : { count }),
    line,
    text: words.filter((word) => word !== "").join(" "),
  };
}

function readLog(source: YamlSource, path: FieldPath, value: unknown, line: number): Expectation {
  const outer: Fields = Fields.of(source, path, value, ["log"]);
  const fields: Fields = Fields.of(source, outer.at("log"), outer.raw("log"), logFields);
  const component = fields.requiredString("component");
  const node = fields.string("node");
  if (node !== undefined) source.names.use({ kind: "node", name: node, path: fields.at("node") });
  fields.requireField("contains");
  const contains = fields.scalarText("contains") ?? source.abandon();
  const level = fields.oneOf("level", logLevels);
  const afterMs = fields.duration("after") ?? 0;
  const withinMs = fields.duration("within");
  const count = fields.integer("count");
  const matcher: LogMatcher = {
    component,
    contains,
    ...(node === undefined ? {} : { node }),
    ...(level === undefined ? {} : { level }),
  };
  const words = [
    "log",
    component,
    node === undefined ? "" : `on ${node}`,
    level ?? "",
    JSON.stringify(contains),
    count === undefined ? "" : `count ${count}`,
    afterMs > 0 ? `after ${formatDuration(afterMs)}` : "",
    withinMs === undefined ? "" : `within ${formatDuration(withinMs)}`,
  ];
  return {
    kind: "log",
    matcher,
    afterMs,
    ...(withinMs === undefined ? {} : { withinMs }),
    ...(count === undefined ? {} : { count }),
    line,
    text: words.filter((word) => word !== "").join(" "),
  };
}

function readCondition(fields: Fields, key: ExpectationKind): Condition {
  const text = fields.requiredString(key);
  try {
    const parsed = parseConditionAndNames(text.trim());
    for (const node of parsed.nodes) {
      fields.source.names.use({ kind: "node", name: node.name, path: fields.at(key), column: node.column });
    }
    return parsed.condition;
  } catch (error) {
    if (error instanceof ConditionSyntaxError) fields.fail(key, error.pointed());
    throw error;
  }
}
