/**
 * Splits a condition into words, quoted strings and parentheses, each with the 1-based column it
 * starts at, so a parse error can point at it.
 */

export interface Token {
  readonly kind: "word" | "string" | "(" | ")" | "end";
  readonly text: string;
  readonly column: number;
}

/** A condition that cannot be read; `column` is 1-based. */
export class ConditionSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly column: number,
    readonly source: string,
  ) {
    super(`${reason} at column ${column}`);
    this.name = "ConditionSyntaxError";
  }

  /** The message, then the condition with a caret under the column. */
  pointed(indent = "  "): string {
    return `${this.message}\n${indent}${this.source}\n${indent}${" ".repeat(Math.max(0, this.column - 1))}^`;
  }
}

const isSpace = (char: string) => char === " " || char === "\t";
const endsWord = (char: string) => isSpace(char) || char === "(" || char === ")" || char === '"';

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < source.length) {
    const char = source[index] ?? "";
    if (isSpace(char)) {
      index++;
    } else if (char === "(" || char === ")") {
      tokens.push({ kind: char, text: char, column: index + 1 });
      index++;
    } else if (char === '"') {
      const close = source.indexOf('"', index + 1);
      if (close < 0) throw new ConditionSyntaxError("unterminated quoted text", index + 1, source);
      tokens.push({ kind: "string", text: source.slice(index + 1, close), column: index + 1 });
      index = close + 1;
    } else {
      const start = index;
      while (index < source.length && !endsWord(source[index] ?? " ")) index++;
      tokens.push({ kind: "word", text: source.slice(start, index), column: start + 1 });
    }
  }
  tokens.push({ kind: "end", text: "", column: source.length + 1 });
  return tokens;
}
