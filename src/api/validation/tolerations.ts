/**
 * Taints (on nodes) and tolerations (on pods), as core validation checks them. They matter to
 * storage: the node lifecycle controller's `node.kubernetes.io/unreachable` and
 * `node.kubernetes.io/out-of-service` taints decide when a dead node's volumes are released.
 */
import type { FieldCause } from "../errors.ts";
import { checkQualifiedName } from "./field-checks.ts";
import { duplicate, invalid, notSupported, required } from "./field-errors.ts";
import { child } from "./field-path.ts";
import { type JsonObject, readInteger, readObjectList, readString } from "./json-reader.ts";
import { labelValueProblems } from "./names.ts";

const taintEffects = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
const tolerationOperators = ["Equal", "Exists"] as const;

function checkTaintEffect(effect: string, allowEmpty: boolean, path: string, out: FieldCause[]): void {
  if (effect === "") {
    if (!allowEmpty) out.push(required(path));
    return;
  }
  if (!(taintEffects as readonly string[]).includes(effect)) out.push(notSupported(path, effect, taintEffects));
}

function validateToleration(toleration: JsonObject, path: string, out: FieldCause[]): void {
  const tolerationKey = readString(toleration.key, child(path, "key"), out) ?? "";
  const operator = readString(toleration.operator, child(path, "operator"), out) ?? "";
  const value = readString(toleration.value, child(path, "value"), out) ?? "";
  const effect = readString(toleration.effect, child(path, "effect"), out) ?? "";
  const seconds = readInteger(toleration.tolerationSeconds, child(path, "tolerationSeconds"), out);
  if (tolerationKey !== "") checkQualifiedName(tolerationKey, child(path, "key"), out);
  if (tolerationKey === "" && operator !== "Exists") {
    out.push(
      invalid(
        child(path, "operator"),
        operator,
        'operator must be Exists when `key` is empty, which means "match all values and all keys"',
      ),
    );
  }
  if (seconds !== undefined && effect !== "NoExecute") {
    out.push(invalid(child(path, "effect"), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
  }
  if (operator === "" || operator === "Equal") {
    const problems = labelValueProblems(value);
    if (problems.length > 0) out.push(invalid(child(path, "operator"), value, problems.join(";")));
  } else if (operator === "Exists") {
    if (value !== "")
      out.push(invalid(child(path, "operator"), toleration, "value must be empty when `operator` is 'Exists'"));
  } else {
    out.push(notSupported(child(path, "operator"), operator, tolerationOperators));
  }
  checkTaintEffect(effect, true, child(path, "effect"), out);
}

export function validateTolerations(value: unknown, path: string, out: FieldCause[]): void {
  for (const entry of readObjectList(value, path, out)) validateToleration(entry.value, entry.path, out);
}

/** A node's taints: key a qualified name, value a label value, an effect, unique by key and effect. */
export function validateTaints(value: unknown, path: string, out: FieldCause[]): void {
  const seen = new Set<string>();
  for (const { value: taint, path: taintPath } of readObjectList(value, path, out)) {
    const taintKey = readString(taint.key, child(taintPath, "key"), out) ?? "";
    const taintValue = readString(taint.value, child(taintPath, "value"), out) ?? "";
    const effect = readString(taint.effect, child(taintPath, "effect"), out) ?? "";
    checkQualifiedName(taintKey, child(taintPath, "key"), out);
    const problems = labelValueProblems(taintValue);
    if (problems.length > 0) out.push(invalid(child(taintPath, "value"), taintValue, problems.join(";")));
    checkTaintEffect(effect, false, child(taintPath, "effect"), out);
    const identity = `${effect}\u0000${taintKey}`;
    if (seen.has(identity)) out.push(duplicate(taintPath, taint, "taints must be unique by key and effect pair"));
    seen.add(identity);
  }
}
