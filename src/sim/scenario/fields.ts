/**
 * Typed reads of one YAML mapping of a scenario, each failing with the file, line and field path:
 * `scenario.yaml:14: timeline[2].at: "5x" is not a duration (use 30s, 2m, 1h5m)`. Unknown keys are
 * errors, so a misspelt field cannot be silently ignored.
 */
import { parseQuantity, QuantityParseError } from "../../api/quantity.ts";
import { durationHint, parseDuration } from "./duration.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

type Mapping = Readonly<Record<string, unknown>>;

export function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What a YAML value is, for "expected X, got Y" messages. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return JSON.stringify(value);
}

export class Fields {
  private constructor(
    readonly source: YamlSource,
    readonly path: FieldPath,
    readonly values: Mapping,
  ) {}

  /** Reads `value` (at `path`) as a mapping whose keys are all in `allowed`. */
  static of(source: YamlSource, path: FieldPath, value: unknown, allowed: readonly string[]): Fields {
    if (!isMapping(value))
      source.fail(path, `expected a mapping with ${allowed.join(", ")}, got ${describeValue(value)}`);
    for (const key of Object.keys(value)) {
      if (!allowed.includes(key))
        source.report([...path, key], `unknown field (expected one of ${allowed.join(", ")})`);
    }
    return new Fields(source, path, value);
  }

  has(key: string): boolean {
    return this.values[key] !== undefined && this.values[key] !== null;
  }

  raw(key: string): unknown {
    return this.values[key];
  }

  at(key: string | number): FieldPath {
    return [...this.path, key];
  }

  fail(key: string | number, message: string): never {
    return this.source.fail(this.at(key), message);
  }

  requireField(key: string): unknown {
    if (!this.has(key)) this.source.fail(this.path, `${key} is required`);
    return this.values[key];
  }

  string(key: string): string | undefined {
    return this.lenient(() => {
      if (!this.has(key)) return undefined;
      const value = this.values[key];
      if (typeof value !== "string") this.fail(key, `expected text, got ${describeValue(value)}`);
      if (value.trim() === "") this.fail(key, "must not be empty");
      return value;
    });
  }

  requiredString(key: string): string {
    this.requireField(key);
    // string() recorded why the value is not usable text; the item cannot be read without it.
    return this.string(key) ?? this.source.abandon();
  }

  /** Text, or a number or boolean written without quotes, as text (`utilLinux: 2.38`). */
  scalarText(key: string): string | undefined {
    const value = this.values[key];
    if (typeof value === "number" || typeof value === "boolean") return String(value);
    return this.string(key);
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T | undefined {
    return this.lenient(() => {
      const value = this.scalarText(key);
      if (value === undefined) return undefined;
      const match = allowed.find((candidate) => candidate === value);
      if (match === undefined) this.fail(key, `"${value}" is not one of ${allowed.join(", ")}`);
      return match;
    });
  }

  boolean(key: string): boolean | undefined {
    return this.lenient(() => {
      if (!this.has(key)) return undefined;
      const value = this.values[key];
      if (typeof value !== "boolean") this.fail(key, `expected true or false, got ${describeValue(value)}`);
      return value;
    });
  }

  /** A whole number ≥ `minimum` (default 0). */
  integer(key: string, minimum = 0): number | undefined {
    return this.lenient(() => {
      if (!this.has(key)) return undefined;
      const value = this.values[key];
      if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
        this.fail(key, `expected a whole number ≥ ${minimum}, got ${describeValue(value)}`);
      }
      return value;
    });
  }

  /** A duration in milliseconds (`30s`, `2m`, `1h5m`). */
  duration(key: string): number | undefined {
    return this.lenient(() => {
      if (!this.has(key)) return undefined;
      return readDuration(this.source, this.at(key), this.values[key]);
    });
  }

  requiredDuration(key: string): number {
    this.requireField(key);
    return this.duration(key) ?? this.source.abandon();
  }

  /** A storage quantity (`512Mi`, `10Gi`) in bytes. */
  quantityBytes(key: string): number | undefined {
    return this.lenient(() => {
      const text = this.scalarText(key);
      if (text === undefined) return undefined;
      let bytes: number;
      try {
        bytes = Number(parseQuantity(text).toBytes());
      } catch (error) {
        if (error instanceof QuantityParseError) this.fail(key, `"${text}" is not a quantity (use 512Mi, 10Gi)`);
        throw error;
      }
      if (bytes <= 0) this.fail(key, `"${text}" must be more than zero`);
      return bytes;
    });
  }

  requiredQuantityBytes(key: string): number {
    this.requireField(key);
    return this.quantityBytes(key) ?? this.source.abandon();
  }

  stringList(key: string): string[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.values[key];
    if (!Array.isArray(value)) this.fail(key, `expected a list of text, got ${describeValue(value)}`);
    return value.map((item, index) => {
      if (typeof item !== "string" || item === "") {
        this.source.fail([...this.at(key), index], `expected text, got ${describeValue(item)}`);
      }
      return item;
    });
  }

  /** A mapping of text to text (labels, parameters). */
  stringMap(key: string): Record<string, string> | undefined {
    if (!this.has(key)) return undefined;
    const value = this.values[key];
    if (!isMapping(value)) this.fail(key, `expected a mapping of text, got ${describeValue(value)}`);
    const result: Record<string, string> = {};
    for (const [name, item] of Object.entries(value)) {
      if (typeof item !== "string")
        this.source.fail([...this.at(key), name], `expected text, got ${describeValue(item)}`);
      result[name] = item;
    }
    return result;
  }

  /**
   * A list; each item is handed to `read` with its path. An item whose read is abandoned after a
   * problem is left out, and the next one is read, so every bad item is reported.
   */
  list<T>(key: string, read: (item: unknown, path: FieldPath) => T): T[] {
    if (!this.has(key)) return [];
    const value = this.values[key];
    if (!Array.isArray(value)) {
      this.source.report(this.at(key), `expected a list, got ${describeValue(value)}`);
      return [];
    }
    const items: T[] = [];
    value.forEach((item, index) => {
      const outcome = this.source.recover(() => ({ item: read(item, [...this.at(key), index]) }), undefined);
      if (outcome !== undefined) items.push(outcome.item);
    });
    return items;
  }

  /** Runs a read of an optional field: a problem is recorded and the field reads as absent. */
  private lenient<T>(read: () => T | undefined): T | undefined {
    return this.source.recover(read, undefined);
  }
}

export function readDuration(source: YamlSource, path: FieldPath, value: unknown): number {
  const text = typeof value === "number" ? String(value) : value;
  const durationMs = typeof text === "string" ? parseDuration(text) : undefined;
  if (durationMs === undefined) source.fail(path, `${describeValue(value)} is not a duration (${durationHint})`);
  return durationMs;
}
