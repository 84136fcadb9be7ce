/**
 * A scenario that cannot be read or is not valid. Each line of the message starts with
 * `file:line: field:` so an editor can jump to it; a file with several mistakes gets one line per
 * mistake (`problems`). The command line prints it without a stack trace and exits 2.
 */

/** One mistake in a scenario file. */
export interface ScenarioProblem {
  /** 1-based line in the file. */
  readonly line: number;
  /** 1-based column, when known (YAML syntax errors). */
  readonly column?: number;
  /** The field path (`timeline[2].at`); "" for a YAML syntax error. */
  readonly path: string;
  /** The whole line as printed: `file:line: path: what is wrong`. */
  readonly message: string;
}

export class ScenarioError extends Error {
  readonly problems: readonly ScenarioProblem[];

  constructor(
    message: string,
    readonly file: string,
    readonly line: number,
    problems?: readonly ScenarioProblem[],
  ) {
    super(message);
    this.name = "ScenarioError";
    this.problems = problems ?? [{ line, path: "", message }];
  }
}
