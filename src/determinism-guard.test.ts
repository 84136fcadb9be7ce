/**
 * Keeps simulations reproducible: outside src/runtime/, no code may read the wall clock, use the
 * global timers, or draw unseeded randomness; it takes a Clock and an Rng instead. The check parses
 * each file, so comments, strings and methods that merely share a name (`clock.setTimer`) are fine.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const sourceRoot = fileURLToPath(new URL(".", import.meta.url));
const runtimeDir = join(sourceRoot, "runtime");

const forbiddenGlobals = new Set(["setTimeout", "setInterval", "setImmediate"]);
const forbiddenMembers: ReadonlyMap<string, string> = new Map([
  ["Date", "now"],
  ["performance", "now"],
  ["process", "hrtime"],
  ["Math", "random"],
]);
const advice = "take a Clock (src/runtime/clock.ts) and an Rng (src/runtime/rng.ts) instead";

interface Violation {
  line: number;
  text: string;
}

function isIdentifierNamed(node: ts.Node, name: string): boolean {
  return ts.isIdentifier(node) && node.text === name;
}

/** True when `node` names a property or member (`x.setTimeout`, `{ setTimeout: … }`), not the global. */
function isMemberName(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.name === node) {
    return !isIdentifierNamed(parent.expression, "globalThis");
  }
  return (
    (ts.isPropertyAssignment(parent) ||
      ts.isMethodDeclaration(parent) ||
      ts.isPropertyDeclaration(parent) ||
      ts.isPropertySignature(parent) ||
      ts.isMethodSignature(parent)) &&
    parent.name === node
  );
}

function forbiddenUse(node: ts.Node): string | undefined {
  if (ts.isIdentifier(node) && forbiddenGlobals.has(node.text) && !isMemberName(node)) return node.text;
  if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression)) {
    const member = forbiddenMembers.get(node.expression.text);
    if (member === node.name.text) return `${node.expression.text}.${member}`;
  }
  if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && isIdentifierNamed(node.expression, "Date")) {
    return ts.isNewExpression(node) ? "new Date" : "Date(";
  }
  return undefined;
}

/** Every forbidden clock, timer or randomness use in `sourceText`, with its 1-based line. */
function findViolations(fileName: string, sourceText: string): Violation[] {
  const sourceFile = ts.createSourceFile(fileName, sourceText, ts.ScriptTarget.Latest, true);
  const violations: Violation[] = [];
  const visit = (node: ts.Node): void => {
    const use = forbiddenUse(node);
    if (use !== undefined) {
      const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
      violations.push({ line: line + 1, text: use });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return violations;
}

function guardedSourceFiles(dir: string, found: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== runtimeDir && entry.name !== "node_modules") guardedSourceFiles(path, found);
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
      found.push(path);
    }
  }
  return found.sort();
}

describe("determinism guard", () => {
  it("recognises every forbidden form and ignores comments, strings and member names", () => {
    const sample = [
      "// Date.now() and setTimeout in a comment are fine",
      'const note = "Math.random() in a string is fine";',
      "clock.setTimer(5, () => undefined); const o = { setTimeout: 1 }; o.setTimeout;",
      "const a = Date.now();",
      "const b = new Date();",
      "const c = Date(); const d = Date.UTC(2026, 0, 1);",
      "setTimeout(() => undefined, 1); globalThis.setInterval(() => undefined, 1);",
      "queueMicrotask(() => setImmediate(() => undefined));",
      "const e = performance.now() + Number(process.hrtime.bigint()) + Math.random();",
      'import { setTimeout as sleep } from "node:timers/promises";',
    ].join("\n");
    assert.deepEqual(
      findViolations("sample.ts", sample).map(({ line, text }) => `${line}:${text}`),
      [
        "4:Date.now",
        "5:new Date",
        "6:Date(",
        "7:setTimeout",
        "7:setInterval",
        "8:setImmediate",
        "9:performance.now",
        "9:process.hrtime",
        "9:Math.random",
        "10:setTimeout",
      ],
    );
  });

  it("finds no wall-clock time, global timers or Math.random outside src/runtime/", () => {
    const files = guardedSourceFiles(sourceRoot);
    assert.ok(files.length > 0, `no source files found under ${sourceRoot}`);
    const report = files.flatMap((file) =>
      findViolations(file, readFileSync(file, "utf8")).map(
        ({ line, text }) => `${relative(sourceRoot, file)}:${line}: ${text}`,
      ),
    );
    assert.deepEqual(report, [], `forbidden outside src/runtime/ (${advice}):\n${report.join("\n")}`);
  });
});
