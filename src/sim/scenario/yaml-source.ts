/**
 * One scenario file parsed with line numbers: the plain value to validate, and the line each field
 * path (`timeline[2].at`) comes from, so every error names both.
 *
 * Problems are collected rather than thrown one at a time, so a user sees every mistake of a file
 * in one go: `fail` records a problem and abandons the item being read (a step, a node, an
 * expectation: `recover` catches that and the reader goes on with the next item); `report` records
 * one and reading goes on. `throwIfProblems` ends the read with all of them in one ScenarioError.
 */
import { type Document, isNode, LineCounter, parseDocument, visit } from "yaml";
import { ScenarioError, type ScenarioProblem } from "./scenario-error.ts";
import { ScenarioNames } from "./scenario-names.ts";

export type FieldPath = readonly (string | number)[];

/** `timeline[2].at`, `cluster.nodes[0].name`; "(top level)" for the root. */
function formatPath(path: FieldPath): string {
  if (path.length === 0) return "(top level)";
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

/** Thrown by `fail` to abandon the item being read; its problem is already recorded. */
class AbandonedItem extends Error {
  constructor() {
    super("a scenario item was abandoned after a recorded problem");
    this.name = "AbandonedItem";
  }
}

/** The most problems one read collects; past this a file is more wrong than right. */
const maxProblems = 100;

export class YamlSource {
  readonly value: unknown;
  private readonly document: Document;
  private readonly lines = new LineCounter();
  private readonly problems: ScenarioProblem[] = [];
  /** The nodes, drivers and StorageClasses the file declares and uses, checked once it is read. */
  readonly names = new ScenarioNames();

  /** `fileName` is how errors name the file (as the user typed it). */
  constructor(
    text: string,
    readonly fileName: string,
  ) {
    this.document = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    for (const error of this.document.errors) {
      // Without prettyErrors the parser leaves linePos unset; `pos` is the offset it stopped at.
      const { line, col } = this.lines.linePos(error.pos[0]);
      const reason = error.message.split("\n")[0] ?? error.message;
      this.problems.push({
        line,
        column: col,
        path: "",
        message: `${fileName}:${line}:${col}: not valid YAML: ${reason}`,
      });
    }
    this.throwIfProblems();
    this.value = this.plainValue();
  }

  /** The document as plain values; a ScenarioError for what the parser only finds while building them. */
  private plainValue(): unknown {
    try {
      return this.document.toJS();
    } catch (error) {
      // An alias to no anchor, or aliases past the parser's limit, show only here, not in `errors`.
      if (!(error instanceof Error)) throw error;
      const line = this.unresolvedAliasLine() ?? 1;
      const message = `${this.fileName}:${line}: not valid YAML: ${error.message}`;
      throw new ScenarioError(message, this.fileName, line);
    }
  }

  /** The line of the first alias whose anchor is not set before it. */
  private unresolvedAliasLine(): number | undefined {
    let line: number | undefined;
    visit(this.document, {
      Alias: (_key, node) => {
        if (node.resolve(this.document) !== undefined || node.range === undefined || node.range === null) return;
        line = this.lines.linePos(node.range[0]).line;
        return visit.BREAK;
      },
    });
    return line;
  }

  /** The line the value at `path` starts on; the nearest enclosing field's line when it is absent. */
  lineOf(path: FieldPath): number {
    for (let length = path.length; length >= 0; length--) {
      const node = this.document.getIn(path.slice(0, length), true);
      if (isNode(node) && node.range !== undefined && node.range !== null) {
        return this.lines.linePos(node.range[0]).line;
      }
    }
    return 1;
  }

  /** Records `file:line: path: message` and abandons the item being read (see `recover`). */
  fail(path: FieldPath, message: string): never {
    this.report(path, message);
    throw new AbandonedItem();
  }

  /** Abandons the item being read after a problem about it was recorded. */
  abandon(): never {
    throw new AbandonedItem();
  }

  /** Records `file:line: path: message`; reading goes on. */
  report(path: FieldPath, message: string): void {
    const line = this.lineOf(path);
    const where = formatPath(path);
    if (this.problems.length < maxProblems) {
      this.problems.push({ line, path: where, message: `${this.fileName}:${line}: ${where}: ${message}` });
    }
  }

  /** Runs `read`; when it abandons its item, returns `fallback` so the caller reads the next one. */
  recover<T, F>(read: () => T, fallback: F): T | F {
    try {
      return read();
    } catch (error) {
      if (error instanceof AbandonedItem) return fallback;
      throw error;
    }
  }

  get problemCount(): number {
    return this.problems.length;
  }

  /** Throws one ScenarioError listing every problem recorded, in file order; nothing when there is none. */
  throwIfProblems(): void {
    if (this.problems.length === 0) return;
    const ordered = [...this.problems].sort((a, b) => a.line - b.line);
    throw new ScenarioError(
      ordered.map((problem) => problem.message).join("\n"),
      this.fileName,
      ordered[0]?.line ?? 1,
      ordered,
    );
  }
}
