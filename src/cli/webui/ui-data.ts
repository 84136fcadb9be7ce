/**
 * What the web UI shows, in the shape both of its sources give it: a live cluster (the browser reads
 * the API and the server's `why` endpoint) and a recording of a simulated run (`kvol sim run --html`),
 * which holds the same snapshots taken at fixed steps of virtual time and the run's lane entries.
 */

import type { LaneEntry } from "../../api/debug/lanes.ts";
import type { ComponentStates } from "../../api/debug/state-changes.ts";
import type { JsonWhyLink } from "../why/why-report.ts";
import type { GraphObject } from "./graph-objects.ts";

/** `kvol why -o json` of one object. */
export interface WhyJson {
  object: string;
  time: string;
  links: JsonWhyLink[];
  remedy: string[];
  unreadable: string[];
}

/** The cluster at one moment. */
export interface ClusterSnapshot {
  /** Cluster clock, epoch milliseconds. */
  atMs: number;
  objects: GraphObject[];
  states: ComponentStates;
  /** `kvol why` of each pod that is not Running and each claim that is not Bound, by graph key. */
  why: Record<string, WhyJson>;
}

export interface RecordedVerdict {
  expectation: string;
  status: string;
  detail?: string;
}

/** A simulated run, everything `kvol sim run --html` writes into the page. */
export interface Recording {
  kind: "KvolRecording";
  scenario: string;
  file: string;
  seed: number;
  /** Cluster clock at run time 0 and at the end, epoch milliseconds. */
  startMs: number;
  endMs: number;
  passed: boolean;
  verdicts: RecordedVerdict[];
  entries: LaneEntry[];
  snapshots: ClusterSnapshot[];
  /** The graph key the page opens on: the pod that was stuck longest. */
  focus: string;
}

/** The id of the `<script type="application/json">` element that carries a Recording in the page. */
export const recordingElementId = "kvol-recording";

/** Where the server serves the UI, and the endpoint that answers `kvol why` for it. */
export const uiPathPrefix = "/ui/";
export const whyPath = "/apis/kvol.io/v1alpha1/why";
