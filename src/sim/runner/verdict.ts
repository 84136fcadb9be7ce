/** The outcome of one expectation (or of a timeline step that failed), as the output shows it. */
import type { ExpectationKind } from "../scenario/model.ts";

type VerdictStatus = "passed" | "failed" | "not decided";

export interface Verdict {
  /** The expectation as the output names it: `eventually pod web-0 phase is Running within 2m`. */
  readonly expectation: string;
  readonly kind: ExpectationKind | "step";
  readonly status: VerdictStatus;
  /** Run time at which it was decided; absent when it was not. */
  readonly atMs?: number;
  /** Why: when it held, what was seen instead, the error. */
  readonly detail: string;
  /** Line in the scenario file; 0 when the expectation was built in code. */
  readonly line: number;
}
