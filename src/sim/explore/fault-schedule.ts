/**
 * A fault schedule: the faults one run injects besides its scenario's own timeline, each at a
 * virtual time since the start of the run and, for a lasting fault, healed at a later one. Written
 * as JSON on the replay command line, so the schedule a run was given is exactly the one it replays:
 *
 *   [{"atMs":65000,"fault":"node-power-off","params":{"node":"node-a"},"healAtMs":400000}]
 *
 * Reading one checks every field and names the entry and field that is wrong.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import type { FaultParams, FaultParamValue } from "../faults/fault.ts";

export interface ScheduledFault {
  readonly atMs: number;
  /** The fault's name in the catalogue (`node-power-off`). */
  readonly fault: string;
  readonly params: FaultParams;
  /** When the fault is healed; absent for a one-shot fault or one left in place. */
  readonly healAtMs?: number;
}

export type FaultSchedule = readonly ScheduledFault[];

const scheduledFaultFields = new Set(["atMs", "fault", "params", "healAtMs"]);

export class FaultScheduleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FaultScheduleError";
  }
}

/** The schedule as one line of JSON (field order fixed, so the same schedule prints the same). */
export function formatFaultSchedule(schedule: FaultSchedule): string {
  return JSON.stringify(
    schedule.map((entry) => ({
      atMs: entry.atMs,
      fault: entry.fault,
      params: entry.params,
      ...(entry.healAtMs === undefined ? {} : { healAtMs: entry.healAtMs }),
    })),
  );
}

/** Reads a schedule written by `formatFaultSchedule` (or by hand); `source` names it in errors (`--replay`). */
export function parseFaultSchedule(text: string, source: string): FaultSchedule {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = errorMessage(error);
    throw new FaultScheduleError(`${source}: not valid JSON (${reason})`);
  }
  if (!Array.isArray(parsed)) throw new FaultScheduleError(`${source}: expected a JSON array of faults`);
  return parsed.map((entry, index) => readEntry(entry, `${source}[${index}]`));
}

function readEntry(entry: unknown, where: string): ScheduledFault {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new FaultScheduleError(`${where}: expected an object with atMs, fault and params`);
  }
  const record = entry as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!scheduledFaultFields.has(key)) {
      throw new FaultScheduleError(`${where}.${key}: unknown field (fields: atMs, fault, params, healAtMs)`);
    }
  }
  const atMs = readTime(record.atMs, `${where}.atMs`);
  if (typeof record.fault !== "string" || record.fault === "") {
    throw new FaultScheduleError(`${where}.fault: expected the name of a fault, such as "node-power-off"`);
  }
  const params = readParams(record.params, `${where}.params`);
  if (record.healAtMs === undefined) return { atMs, fault: record.fault, params };
  const healAtMs = readTime(record.healAtMs, `${where}.healAtMs`);
  if (healAtMs < atMs) {
    throw new FaultScheduleError(
      `${where}.healAtMs: ${healAtMs} is before atMs ${atMs}; a fault heals after it starts`,
    );
  }
  return { atMs, fault: record.fault, params, healAtMs };
}

function readTime(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new FaultScheduleError(
      `${where}: expected a whole number of milliseconds >= 0, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function readParams(value: unknown, where: string): FaultParams {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FaultScheduleError(`${where}: expected an object of parameters, such as {"node":"node-a"}`);
  }
  const params: Record<string, FaultParamValue> = {};
  for (const [name, param] of Object.entries(value as Record<string, unknown>)) {
    if (typeof param !== "string" && typeof param !== "number" && typeof param !== "boolean") {
      throw new FaultScheduleError(`${where}.${name}: expected a string, number or boolean`);
    }
    params[name] = param;
  }
  return params;
}
