/**
 * fast-check generators of hostile input for the API fuzz tests: values of the wrong type,
 * huge and negative numbers, odd unicode, prototype keys, deep nesting; and mutations of a valid
 * object at any of its paths. The run count is fixed for CI; `KVOL_FUZZ_RUNS` raises it.
 */
import fc from "fast-check";
import type { JsonObject } from "./valid-objects.ts";

/** The fixed seed of every fuzz property, so a CI failure replays exactly. */
export const fuzzSeed = 20;

/** Runs per property: small by default so CI stays fast; `KVOL_FUZZ_RUNS=500` for a long search. */
export function fuzzRuns(defaultRuns: number): number {
  const asked = Number(process.env.KVOL_FUZZ_RUNS);
  return Number.isInteger(asked) && asked > 0 ? asked : defaultRuns;
}

function deeplyNested(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return value;
}

/** A value that is likely wrong wherever it lands. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    true,
    0,
    -1,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    2 ** 31,
    -(2 ** 31) - 1,
    0.5,
    "",
    "-1Gi",
    "1e400",
    "99999999999999999999999Ei",
    "0.000000001m",
    "NaN",
    "__proto__",
    "constructor",
    "\u0000",
    "\ud800",
    "x".repeat(70000),
    "Ünïcødé-名前-🙂",
    "../../etc/passwd",
    "a".repeat(254),
    [],
    {},
    [null],
    JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}}'),
    deeplyNested(200),
    deeplyNested(2000),
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 4 }),
);

type PathStep = string | number;

/** Every path of a JSON value (the root included as `[]`). */
export function pathsOf(value: unknown, prefix: PathStep[] = []): PathStep[][] {
  const paths: PathStep[][] = [prefix];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      paths.push(...pathsOf(item, [...prefix, index]));
    });
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

export type Mutation =
  | { op: "set"; path: PathStep[]; value: unknown }
  | { op: "remove"; path: PathStep[] }
  | { op: "add-field"; path: PathStep[]; key: string; value: unknown };

const fieldName = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "unknownField", "", "spec", "status", "metadata"),
  fc.string({ maxLength: 12 }),
);

/** One mutation at a path of the object. */
export function mutationOf(object: JsonObject): fc.Arbitrary<Mutation> {
  const paths = pathsOf(object).filter((path) => path.length > 0);
  const path = fc.constantFrom(...paths);
  return fc.oneof(
    fc.record({ op: fc.constant("set" as const), path, value: hostileValue }),
    fc.record({ op: fc.constant("remove" as const), path }),
    fc.record({
      op: fc.constant("add-field" as const),
      path: fc.constantFrom([], ...paths),
      key: fieldName,
      value: hostileValue,
    }),
  );
}

/** Applies mutations to a copy of the object; a path that no longer exists is skipped. */
export function mutate(object: JsonObject, mutations: readonly Mutation[]): JsonObject {
  const copy = structuredClone(object);
  for (const mutation of mutations) {
    const parentPath = mutation.op === "add-field" ? mutation.path : mutation.path.slice(0, -1);
    let parent: unknown = copy;
    for (const step of parentPath)
      parent = isContainer(parent) ? (parent as Record<PathStep, unknown>)[step] : undefined;
    if (!isContainer(parent)) continue;
    const target = parent as Record<PathStep, unknown>;
    if (mutation.op === "add-field") {
      Object.defineProperty(target, mutation.key, { value: mutation.value, enumerable: true, writable: true });
      continue;
    }
    const last = mutation.path[mutation.path.length - 1] as PathStep;
    if (mutation.op === "set") target[last] = mutation.value;
    else if (Array.isArray(target)) target.splice(Number(last), 1);
    else delete target[last];
  }
  return copy;
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === "object";
}

/** A mutated copy of the object: one to three mutations. */
export function mutatedObject(object: JsonObject): fc.Arbitrary<JsonObject> {
  return fc.array(mutationOf(object), { minLength: 1, maxLength: 3 }).map((mutations) => mutate(object, mutations));
}
