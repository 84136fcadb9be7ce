/**
 * A recorded simulated run (`kvol sim run --html`): the page carries the recording as JSON; the
 * view at a chosen moment is the last snapshot taken at or before it, with the whole run's timeline.
 */
import { noComponentStates } from "../../../src/api/debug/state-changes.ts";
import { type Recording, recordingElementId } from "../../../src/cli/webui/ui-data.ts";
import type { ViewData } from "./view.ts";

export function pageRecording(): Recording | undefined {
  const element = document.getElementById(recordingElementId);
  if (element?.textContent === null || element?.textContent === undefined) return undefined;
  return JSON.parse(element.textContent) as Recording;
}

/** The last snapshot at or before `atMs` (the first one before any). */
function snapshotAt(recording: Recording, atMs: number) {
  let found = recording.snapshots[0];
  for (const snapshot of recording.snapshots) {
    if (snapshot.atMs > atMs) break;
    found = snapshot;
  }
  return found;
}

/** The time the page opens at: the last snapshot with a report on the focus (the incident at its worst). */
export function openingTimeMs(recording: Recording): number {
  const withFocus = recording.snapshots.filter((snapshot) => snapshot.why[recording.focus] !== undefined);
  return withFocus.at(-1)?.atMs ?? recording.endMs;
}

export function recordedView(recording: Recording, atMs: number, selected: string): ViewData {
  const snapshot = snapshotAt(recording, atMs);
  const why = snapshot?.why[selected];
  return {
    mode: "recorded",
    title: `${recording.scenario} — ${recording.file}, seed ${recording.seed}`,
    nowMs: snapshot?.atMs ?? atMs,
    startMs: recording.startMs,
    endMs: recording.endMs,
    objects: snapshot?.objects ?? [],
    states: snapshot?.states ?? noComponentStates,
    unreadable: [],
    forbidden: [],
    entries: recording.entries,
    why:
      why ??
      (selected === ""
        ? undefined
        : {
            error:
              "Nothing blocks it at this moment (reports are recorded for pods that are not Running and claims that are not Bound).",
          }),
    faults: undefined,
    connection: recording.passed ? "run passed" : "run failed",
    verdicts: recording.verdicts,
  };
}
