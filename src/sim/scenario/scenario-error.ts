/**
 * A scenario that cannot be read or is not valid. The message starts with `file:line: field:` so
 * an editor can jump to it; the command line prints it without a stack trace and exits 2.
 */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line: number,
  ) {
    super(message);
    this.name = "ScenarioError";
  }
}
