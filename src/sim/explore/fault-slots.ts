/**
 * The random part of a schedule drawn before a run starts: at which whole second each fault
 * happens and, should it be a lasting fault, how long it lasts. Which fault it is and what it hits
 * (the node, the disk) depend on the cluster at that moment — a fault with nothing to hit is never
 * chosen — so `random-fault-injector.ts` picks them then, from the faults' own `targets`.
 */
import type { Rng } from "../../runtime/rng.ts";
import {
  exploreHealProbability,
  exploreMaxFaultsPerSchedule,
  exploreMinFaultDurationMs,
  exploreTimeGranularityMs,
} from "./constants.ts";

export interface FaultSlot {
  /** Virtual time since the start of the run, a whole number of seconds. */
  readonly atMs: number;
  /** How long a lasting fault stays before it is healed; absent: left in place. */
  readonly healAfterMs?: number;
}

interface SlotDrawOptions {
  /** The run's length: faults start, and are healed, before it ends. */
  readonly spanMs: number;
  /** Default `exploreMaxFaultsPerSchedule`. */
  readonly maxFaults?: number;
}

function wholeSteps(durationMs: number): number {
  return Math.floor(durationMs / exploreTimeGranularityMs);
}

/** One to `maxFaults` slots in time order (ties keep the order drawn). */
export function drawFaultSlots(rng: Rng, options: SlotDrawOptions): FaultSlot[] {
  const { spanMs } = options;
  const lastStep = wholeSteps(spanMs) - 1;
  if (lastStep < 0)
    throw new Error(`drawFaultSlots: spanMs must be at least ${exploreTimeGranularityMs}, got ${spanMs}`);
  const maxFaults = options.maxFaults ?? exploreMaxFaultsPerSchedule;
  if (!Number.isSafeInteger(maxFaults) || maxFaults < 1) {
    throw new RangeError(`drawFaultSlots: maxFaults must be a whole number >= 1, got ${maxFaults}`);
  }
  const slots: FaultSlot[] = [];
  for (let count = rng.int(1, maxFaults); slots.length < count; ) {
    const atMs = rng.int(0, lastStep) * exploreTimeGranularityMs;
    const healAfterMs = drawHealAfterMs(rng, spanMs - atMs);
    slots.push(healAfterMs === undefined ? { atMs } : { atMs, healAfterMs });
  }
  return slots.sort((a, b) => a.atMs - b.atMs);
}

function drawHealAfterMs(rng: Rng, remainingMs: number): number | undefined {
  const minSteps = wholeSteps(exploreMinFaultDurationMs);
  // Healed strictly before the run ends, so the run sees the heal.
  const maxSteps = wholeSteps(remainingMs) - 1;
  if (maxSteps < minSteps || !rng.chance(exploreHealProbability)) return undefined;
  return rng.int(minSteps, maxSteps) * exploreTimeGranularityMs;
}
