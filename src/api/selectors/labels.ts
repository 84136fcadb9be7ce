/**
 * Label selectors: the string syntax of `?labelSelector=` and `kubectl -l`
 * (`app=web,tier!=db,env in (a,b),env notin (c),legacy,!beta`) and the metav1.LabelSelector object
 * of workload and volume specs, both compiled into one `LabelMatcher`.
 *
 * Semantics as Kubernetes' `labels.Selector`: requirements are ANDed; `!=` and `notin` also match
 * objects that do not have the label; an empty selector matches everything.
 */
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { badRequest } from "../errors.ts";
import { labelValueProblems, qualifiedNameProblems } from "../validation/names.ts";

type LabelOperator = "=" | "!=" | "in" | "notin" | "exists" | "!" | ">" | "<";

interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** One value for `=`, `!=`, `>`, `<`; one or more for `in`/`notin`; none for `exists`/`!`. */
  values: readonly string[];
}

type Labels = Readonly<Record<string, string>> | undefined;

function ownLabel(labels: Labels, key: string): string | undefined {
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

function parseInteger(text: string): number | undefined {
  return /^-?[0-9]+$/.test(text) ? Number(text) : undefined;
}

function requirementMatches(requirement: LabelRequirement, labels: Labels): boolean {
  const value = ownLabel(labels, requirement.key);
  switch (requirement.operator) {
    case "=":
      return value === requirement.values[0];
    case "!=":
      return value !== requirement.values[0];
    case "in":
      return value !== undefined && requirement.values.includes(value);
    case "notin":
      return value === undefined || !requirement.values.includes(value);
    case "exists":
      return value !== undefined;
    case "!":
      return value === undefined;
    case ">":
    case "<": {
      const actual = value === undefined ? undefined : parseInteger(value);
      const bound = Number(requirement.values[0]);
      if (actual === undefined) return false;
      return requirement.operator === ">" ? actual > bound : actual < bound;
    }
  }
}

function requirementText(requirement: LabelRequirement): string {
  const { key, operator, values } = requirement;
  switch (operator) {
    case "exists":
      return key;
    case "!":
      return `!${key}`;
    case "in":
    case "notin":
      return `${key} ${operator} (${values.join(",")})`;
    default:
      return `${key}${operator}${values[0] ?? ""}`;
  }
}

/** A compiled label selector. Immutable; share it freely. */
export class LabelMatcher {
  readonly requirements: readonly LabelRequirement[];
  /** False only for the selector that matches nothing (a null metav1.LabelSelector). */
  private readonly matchesAnything: boolean;

  constructor(requirements: readonly LabelRequirement[], matchesAnything = true) {
    this.requirements = requirements;
    this.matchesAnything = matchesAnything;
  }

  matches(labels: Labels): boolean {
    if (!this.matchesAnything) return false;
    for (const requirement of this.requirements) {
      if (!requirementMatches(requirement, labels)) return false;
    }
    return true;
  }

  /** True when every object matches (no requirement). */
  isEverything(): boolean {
    return this.matchesAnything && this.requirements.length === 0;
  }

  /** The string syntax, as Kubernetes prints a selector. */
  toString(): string {
    return this.requirements.map(requirementText).join(",");
  }
}

const everythingLabelMatcher = new LabelMatcher([]);
const nothingLabelMatcher = new LabelMatcher([], false);

/** Why a label key is not valid, or undefined when it is (Kubernetes' qualified-name rule and words). */
function labelKeyProblem(key: string): string | undefined {
  return qualifiedNameProblems(key).join("; ") || undefined;
}

/** Why a label value is not valid, or undefined when it is (empty is valid). */
function labelValueProblem(value: string): string | undefined {
  return labelValueProblems(value).join("; ") || undefined;
}

// ---- the string syntax -------------------------------------------------------------------------

type TokenKind = "identifier" | "(" | ")" | "," | "!" | "=" | "==" | "!=" | ">" | "<" | "end";

interface Token {
  kind: TokenKind;
  text: string;
  position: number;
}

const symbolTokens: readonly TokenKind[] = ["==", "!=", "(", ")", ",", "!", "=", ">", "<"];
const identifierStop = /[\s(),!=<>]/;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < text.length) {
    const char = text.charAt(position);
    if (/\s/.test(char)) {
      position++;
      continue;
    }
    const symbol = symbolTokens.find((candidate) => text.startsWith(candidate, position));
    if (symbol !== undefined) {
      tokens.push({ kind: symbol, text: symbol, position });
      position += symbol.length;
      continue;
    }
    const start = position;
    while (position < text.length && !identifierStop.test(text.charAt(position))) position++;
    tokens.push({ kind: "identifier", text: text.slice(start, position), position: start });
  }
  tokens.push({ kind: "end", text: "end of selector", position: text.length });
  return tokens;
}

class LabelSelectorParser {
  private index = 0;
  private readonly tokens: Token[];
  private readonly source: string;

  constructor(source: string) {
    this.source = source;
    this.tokens = tokenize(source);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    if (this.peek().kind === "end") return requirements;
    for (;;) {
      requirements.push(this.requirement());
      const next = this.take();
      if (next.kind === "end") return requirements;
      if (next.kind !== ",") this.fail(next, `expected "," between requirements, found "${next.text}"`);
    }
  }

  private requirement(): LabelRequirement {
    if (this.peek().kind === "!") {
      this.take();
      const key = this.key();
      return { key, operator: "!", values: [] };
    }
    const key = this.key();
    const next = this.peek();
    switch (next.kind) {
      case ",":
      case "end":
        return { key, operator: "exists", values: [] };
      case "=":
      case "==":
      case "!=":
      case ">":
      case "<":
        this.take();
        return this.comparison(key, next);
      case "identifier":
        if (next.text === "in" || next.text === "notin") {
          this.take();
          return { key, operator: next.text, values: this.valueSet(key, next.text) };
        }
        return this.fail(next, `expected an operator (=, ==, !=, in, notin) after key "${key}", found "${next.text}"`);
      default:
        return this.fail(next, `expected an operator (=, ==, !=, in, notin) after key "${key}", found "${next.text}"`);
    }
  }

  private comparison(key: string, operatorToken: Token): LabelRequirement {
    const operator: LabelOperator =
      operatorToken.kind === "!=" ? "!=" : operatorToken.kind === ">" ? ">" : operatorToken.kind === "<" ? "<" : "=";
    const next = this.peek();
    // `a=` (empty value) is valid: the label exists with an empty value.
    const value = next.kind === "identifier" ? this.take().text : "";
    if (next.kind !== "identifier" && next.kind !== "," && next.kind !== "end") {
      this.fail(next, `expected a value after "${key}${operatorToken.text}", found "${next.text}"`);
    }
    if (operator === ">" || operator === "<") {
      if (parseInteger(value) === undefined) {
        this.fail(next, `value "${value}" of "${key}${operator}" must be an integer`);
      }
    } else {
      this.checkValue(key, value, next);
    }
    return { key, operator, values: [value] };
  }

  private valueSet(key: string, operator: string): string[] {
    const open = this.take();
    if (open.kind !== "(") this.fail(open, `expected "(" after "${key} ${operator}", found "${open.text}"`);
    const values: string[] = [];
    for (;;) {
      const token = this.take();
      if (token.kind === ")" && values.length === 0) {
        this.fail(token, `the value set of "${key} ${operator}" must not be empty`);
      }
      const value = token.kind === "identifier" ? token.text : "";
      if (token.kind !== "identifier" && token.kind !== "," && token.kind !== ")") {
        this.fail(token, `expected a value in the set of "${key} ${operator}", found "${token.text}"`);
      }
      this.checkValue(key, value, token);
      values.push(value);
      const separator = token.kind === "identifier" ? this.take() : token;
      if (separator.kind === ")") return [...new Set(values)].sort();
      if (separator.kind !== ",") {
        this.fail(separator, `expected "," or ")" in the set of "${key} ${operator}", found "${separator.text}"`);
      }
    }
  }

  private key(): string {
    const token = this.take();
    if (token.kind !== "identifier") this.fail(token, `expected a label key, found "${token.text}"`);
    const problem = labelKeyProblem(token.text);
    if (problem !== undefined) this.fail(token, `label key "${token.text}" is not valid: ${problem}`);
    return token.text;
  }

  private checkValue(key: string, value: string, token: Token): void {
    const problem = labelValueProblem(value);
    if (problem !== undefined) this.fail(token, `value "${value}" for label "${key}" is not valid: ${problem}`);
  }

  private peek(): Token {
    return this.tokens[this.index] as Token;
  }

  private take(): Token {
    const token = this.peek();
    if (token.kind !== "end") this.index++;
    return token;
  }

  private fail(token: Token, why: string): never {
    throw badRequest(`unable to parse label selector "${this.source}" at position ${token.position}: ${why}`);
  }
}

/** Parses the string syntax; throws BadRequest naming the offending part. "" matches everything. */
export function parseLabelSelector(text: string | undefined): LabelMatcher {
  if (text === undefined || text.trim() === "") return everythingLabelMatcher;
  return new LabelMatcher(new LabelSelectorParser(text).parse());
}

// ---- the metav1.LabelSelector object -----------------------------------------------------------

const operatorForExpression: Record<string, LabelOperator> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

function expressionRequirement(
  expression: { key: string; operator: string; values?: string[] },
  index: number,
): LabelRequirement {
  const where = `matchExpressions[${index}]`;
  const problem = labelKeyProblem(expression.key);
  if (problem !== undefined) throw badRequest(`${where}.key: invalid label key "${expression.key}": ${problem}`);
  const operator = operatorForExpression[expression.operator];
  if (operator === undefined) {
    throw badRequest(
      `${where}.operator: "${expression.operator}" is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
    );
  }
  const values = expression.values ?? [];
  const needsValues = operator === "in" || operator === "notin";
  if (needsValues && values.length === 0) {
    throw badRequest(`${where}.values: must be specified when operator is ${expression.operator}`);
  }
  if (!needsValues && values.length > 0) {
    throw badRequest(`${where}.values: may not be specified when operator is ${expression.operator}`);
  }
  for (const value of values) {
    const valueProblem = labelValueProblem(value);
    if (valueProblem !== undefined) throw badRequest(`${where}.values: invalid value "${value}": ${valueProblem}`);
  }
  return { key: expression.key, operator, values: [...new Set(values)].sort() };
}

/**
 * Compiles a metav1.LabelSelector. As Kubernetes' `LabelSelectorAsSelector`: an absent (null)
 * selector matches nothing, an empty one matches everything.
 */
export function labelMatcherFromSelector(selector: LabelSelector | null | undefined): LabelMatcher {
  if (selector === null || selector === undefined) return nothingLabelMatcher;
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem !== undefined) throw badRequest(`matchLabels: invalid label key "${key}": ${keyProblem}`);
    const valueProblem = labelValueProblem(value);
    if (valueProblem !== undefined) {
      throw badRequest(`matchLabels[${key}]: invalid value "${value}": ${valueProblem}`);
    }
    requirements.push({ key, operator: "=", values: [value] });
  }
  (selector.matchExpressions ?? []).forEach((expression, index) => {
    requirements.push(expressionRequirement(expression, index));
  });
  return new LabelMatcher(requirements);
}

/** A selector matching exactly these labels (`a=1,b=2`), as `labels.SelectorFromSet`. */
export function labelMatcherFromSet(labels: Readonly<Record<string, string>>): LabelMatcher {
  return new LabelMatcher(Object.entries(labels).map(([key, value]) => ({ key, operator: "=", values: [value] })));
}
