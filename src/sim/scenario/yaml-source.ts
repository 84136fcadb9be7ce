/**
 * One scenario file parsed with line numbers: the plain value to validate, and the line each field
 * path (`timeline[2].at`) comes from, so every error names both.
 */
import { type Document, isNode, LineCounter, parseDocument } from "yaml";
import { ScenarioError } from "./scenario-error.ts";

export type FieldPath = readonly (string | number)[];

/** `timeline[2].at`, `cluster.nodes[0].name`; "(top level)" for the root. */
export function formatPath(path: FieldPath): string {
  if (path.length === 0) return "(top level)";
  return path.map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
}

export class YamlSource {
  readonly value: unknown;
  private readonly document: Document;
  private readonly lines = new LineCounter();

  /** `fileName` is how errors name the file (as the user typed it). */
  constructor(
    text: string,
    readonly fileName: string,
  ) {
    this.document = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    const [error] = this.document.errors;
    if (error !== undefined) {
      const line = error.linePos?.[0].line ?? 1;
      const reason = error.message.split("\n")[0] ?? error.message;
      throw new ScenarioError(`${fileName}:${line}: not valid YAML: ${reason}`, fileName, line);
    }
    this.value = this.document.toJS();
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

  /** Throws `file:line: path: message`. */
  fail(path: FieldPath, message: string): never {
    const line = this.lineOf(path);
    throw new ScenarioError(`${this.fileName}:${line}: ${formatPath(path)}: ${message}`, this.fileName, line);
  }
}
