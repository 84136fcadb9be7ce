/**
 * The one place fault parameters are checked: every fault reads its parameters through a
 * `FaultArgs` built from its `params` specs, so every fault reports a missing, unknown or
 * malformed parameter the same way, naming the fault and the parameter:
 *
 *   fault node-power-off: parameter "node" is required
 *   fault api-latency: parameter "delay": "3x" is not a duration (write 30s, 2m, 1m30s or milliseconds)
 *
 * Values may arrive typed (from YAML) or as text (from `kvol fault NAME key=value`).
 */
import type { FaultParam, FaultParams, FaultParamValue } from "./fault.ts";
import { parseDurationMs } from "./go-duration.ts";

/** What a fault needs to check its parameters: its name and its parameter specs. */
export interface FaultParamSpecs {
  readonly name: string;
  readonly params: readonly FaultParam[];
}

type CheckedValue = string | number | boolean;

export class FaultArgs {
  private readonly values = new Map<string, CheckedValue>();

  /** Checks `params` against the specs; throws an Error naming the first bad parameter. */
  constructor(
    private readonly fault: FaultParamSpecs,
    params: FaultParams,
  ) {
    const known = new Set(fault.params.map((spec) => spec.name));
    for (const name of Object.keys(params)) {
      if (!known.has(name)) {
        const list = [...known].map((param) => `"${param}"`).join(", ") || "none";
        throw this.error(`unknown parameter "${name}" (parameters: ${list})`);
      }
    }
    for (const spec of fault.params) {
      const given = params[spec.name] ?? spec.default;
      if (given === undefined) {
        if (spec.required) throw this.error(`parameter "${spec.name}" is required`);
        continue;
      }
      this.values.set(spec.name, this.convert(spec, given));
    }
  }

  /** A string parameter; a required one is always present. */
  string(name: string): string {
    return this.expect(name, "string");
  }

  optionalString(name: string): string | undefined {
    return this.optional(name, "string");
  }

  number(name: string): number {
    return this.expect(name, "number");
  }

  optionalNumber(name: string): number | undefined {
    return this.optional(name, "number");
  }

  boolean(name: string): boolean {
    return this.expect(name, "boolean");
  }

  /** A duration parameter, in milliseconds. */
  durationMs(name: string): number {
    return this.expect(name, "number");
  }

  optionalDurationMs(name: string): number | undefined {
    return this.optional(name, "number");
  }

  /** An Error about this fault's use, for checks beyond the specs (`no node named node-9`). */
  error(problem: string): Error {
    return new Error(`fault ${this.fault.name}: ${problem}`);
  }

  private convert(spec: FaultParam, given: FaultParamValue): CheckedValue {
    const shown = JSON.stringify(given);
    switch (spec.type) {
      case "string":
        if (typeof given === "boolean" || given === "") {
          throw this.error(`parameter "${spec.name}": ${shown} is not a non-empty string`);
        }
        return String(given);
      case "number": {
        const value = typeof given === "string" && given.trim() !== "" ? Number(given) : given;
        if (typeof value !== "number" || !Number.isFinite(value)) {
          throw this.error(`parameter "${spec.name}": ${shown} is not a number`);
        }
        return value;
      }
      case "boolean": {
        if (given === true || given === "true") return true;
        if (given === false || given === "false") return false;
        throw this.error(`parameter "${spec.name}": ${shown} is not true or false`);
      }
      case "duration": {
        const valueMs = typeof given === "boolean" ? undefined : parseDurationMs(given);
        if (valueMs === undefined) {
          throw this.error(
            `parameter "${spec.name}": ${shown} is not a duration (write 30s, 2m, 1m30s or milliseconds)`,
          );
        }
        return valueMs;
      }
    }
  }

  private expect<T extends "string" | "number" | "boolean">(name: string, type: T): TypeFor<T> {
    const value = this.optional(name, type);
    if (value === undefined) throw this.error(`parameter "${name}" is required`);
    return value;
  }

  private optional<T extends "string" | "number" | "boolean">(name: string, type: T): TypeFor<T> | undefined {
    if (!this.fault.params.some((spec) => spec.name === name)) {
      throw new Error(`fault ${this.fault.name} reads parameter "${name}", which its specs do not declare`);
    }
    const value = this.values.get(name);
    if (value === undefined) return undefined;
    if (typeof value !== type) {
      throw new Error(`fault ${this.fault.name} reads parameter "${name}" as a ${type}, but it is a ${typeof value}`);
    }
    return value as TypeFor<T>;
  }
}

type TypeFor<T> = T extends "string" ? string : T extends "number" ? number : boolean;

/** Checks `params` for a fault that reads none of them afterwards (a parameterless fault, a heal). */
export function checkFaultParams(fault: FaultParamSpecs, params: FaultParams): void {
  new FaultArgs(fault, params);
}
