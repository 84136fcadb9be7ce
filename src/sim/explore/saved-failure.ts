/**
 * A failure the fault campaign found, saved as a scenario file that replays it on its own with
 * `kvol sim run FILE`: the original scenario with its seed set to the failing run's and the shrunk
 * schedule's faults (and heals) written into its timeline. Each added step goes after every step of
 * the scenario at the same time or earlier, which is the order `kvol sim explore --replay` plays the
 * same faults in, so both replays are the same run. `file:` manifests are made absolute, so the
 * saved file works from any folder.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { isMap, isScalar, isSeq, parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import { formatDuration, parseDuration } from "../scenario/duration.ts";
import type { FaultSchedule } from "./fault-schedule.ts";

/** What a saved file holds besides the scenario: why it was saved. */
export interface SavedFailureInfo {
  readonly seed: number;
  readonly schedule: FaultSchedule;
  /** The failure, one line per invariant or step (`rwo-single-attach at 3m: …`). */
  readonly what: readonly string[];
  /** `kvol sim explore … --replay '…'`, the other way to replay it. */
  readonly exploreReplay: string;
}

interface AddedStep {
  readonly atMs: number;
  readonly step: Record<string, unknown>;
}

function addedSteps(schedule: FaultSchedule, seed: number): AddedStep[] {
  const steps: AddedStep[] = [];
  for (const entry of schedule) {
    const what = { name: entry.fault, params: entry.params };
    steps.push({
      atMs: entry.atMs,
      step: { at: formatDuration(entry.atMs), fault: what, note: `fault campaign, seed ${seed}` },
    });
    if (entry.healAtMs !== undefined) {
      steps.push({ atMs: entry.healAtMs, step: { at: formatDuration(entry.healAtMs), heal: what } });
    }
  }
  // Stable: same-time added steps keep the schedule's order, as the replay's do.
  return steps.sort((a, b) => a.atMs - b.atMs);
}

/** The time of an existing timeline step (the loader has checked it). */
function stepAtMs(step: unknown): number {
  if (!isMap(step)) return 0;
  const at = step.get("at");
  return parseDuration(String(at)) ?? 0;
}

/** Makes `apply: { file: … }` paths absolute, resolved from the original scenario's folder. */
function absoluteManifestPaths(step: unknown, baseDir: string): void {
  if (!isMap(step)) return;
  const apply = step.get("apply", true);
  if (!isMap(apply)) return;
  const file = apply.get("file", true);
  if (isScalar(file) && typeof file.value === "string" && !isAbsolute(file.value)) {
    file.value = resolve(baseDir, file.value);
  }
}

/** The scenario text with the failing seed and faults written in. */
export function scenarioWithFaults(text: string, scenarioFile: string, info: SavedFailureInfo): string {
  const document = parseDocument(text);
  const baseDir = resolve(scenarioFile, "..");
  document.set("seed", info.seed);
  if (!document.has("timeline")) document.set("timeline", document.createNode([]));
  const timeline = document.get("timeline", true) as YAMLSeq | YAMLMap;
  if (!isSeq(timeline)) throw new Error(`${scenarioFile}: timeline is not a list`);
  for (const item of timeline.items) absoluteManifestPaths(item, baseDir);
  for (const added of addedSteps(info.schedule, info.seed)) {
    let position = timeline.items.length;
    while (position > 0 && stepAtMs(timeline.items[position - 1]) > added.atMs) position--;
    const node = document.createNode(added.step, { flow: false });
    timeline.items.splice(position, 0, node);
  }
  const header = [
    ` Saved by the fault campaign from ${scenarioFile}:`,
    ...info.what.map((line) => `   ${line}`),
    ` Seed ${info.seed}; the added faults are the steps noted "fault campaign".`,
    " Replay: kvol sim run THIS_FILE",
    ` or:     ${info.exploreReplay}`,
  ].join("\n");
  document.commentBefore = document.commentBefore ? `${header}\n${document.commentBefore}` : header;
  return document.toString({ lineWidth: 0 });
}

/**
 * Writes the saved scenario into `dir` as `<scenario>-seed-<N>.yaml` and returns its path.
 */
export function saveFailureScenario(dir: string, scenarioFile: string, info: SavedFailureInfo): string {
  mkdirSync(dir, { recursive: true });
  const name = `${basename(scenarioFile).replace(/\.ya?ml$/, "")}-seed-${info.seed}.yaml`;
  const path = join(dir, name);
  writeFileSync(path, scenarioWithFaults(readFileSync(scenarioFile, "utf8"), scenarioFile, info));
  return path;
}
