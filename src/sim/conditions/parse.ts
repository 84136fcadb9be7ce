/**
 * The condition parser (grammar in `docs/scenarios.md`, "Conditions"): `or` binds loosest, then
 * `and`, then `not`; parentheses group. Kinds, properties and enumerated values are checked here,
 * so a typo is reported when the scenario is read, with the column it is at.
 */
import type { Condition, MountHealth } from "./ast.ts";
import { kindOfWord, knownKindWords, type ObjectRef, parseRefName } from "./object-ref.ts";
import { propertyNames, propertyOf } from "./properties.ts";
import { ConditionSyntaxError, type Token, tokenize } from "./tokens.ts";

const mountHealths: readonly MountHealth[] = ["healthy", "corrupted", "absent"];

/** Parses `source`; throws ConditionSyntaxError pointing at the offending column. */
export function parseCondition(source: string): Condition {
  const parser = new Parser(source);
  const condition = parser.condition();
  parser.expectEnd();
  return condition;
}

class Parser {
  private readonly tokens: Token[];
  /** The "end" token `tokenize` always puts last; reading past the end keeps returning it. */
  private readonly end: Token;
  private position = 0;

  constructor(private readonly source: string) {
    this.tokens = tokenize(source);
    this.end = this.tokens[this.tokens.length - 1] ?? { kind: "end", text: "", column: source.length + 1 };
    if (this.tokens.length === 1) throw new ConditionSyntaxError("the condition is empty", 1, source);
  }

  condition(): Condition {
    const operands = [this.term()];
    while (this.acceptKeyword("or")) operands.push(this.term());
    return operands.length === 1 ? (operands[0] as Condition) : { type: "or", operands };
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.kind === ")") this.fail(`")" has no matching "("`, token);
    if (token.kind !== "end") this.fail(`expected "and", "or" or the end, found "${token.text}"`, token);
  }

  private term(): Condition {
    const operands = [this.factor()];
    while (this.acceptKeyword("and")) operands.push(this.factor());
    return operands.length === 1 ? (operands[0] as Condition) : { type: "and", operands };
  }

  private factor(): Condition {
    if (this.acceptKeyword("not")) return { type: "not", operand: this.factor() };
    const token = this.peek();
    if (token.kind === "(") {
      this.position++;
      const inner = this.condition();
      if (this.peek().kind !== ")") this.fail(`expected ")" to close the "(" at column ${token.column}`, this.peek());
      this.position++;
      return inner;
    }
    return this.check();
  }

  private check(): Condition {
    const token = this.peek();
    if (token.kind !== "word") this.fail(`expected a check such as "pod web-0 phase is Running"`, token);
    const word = token.text.toLowerCase();
    if (word === "volumeattachments") return this.attachmentCount();
    if (word === "mount") return this.mount();
    return this.objectCheck();
  }

  /** `volumeattachments of pv|pvc REF count is N` */
  private attachmentCount(): Condition {
    this.position++;
    this.expectKeyword("of", "volumeattachments");
    const kindToken = this.next();
    const kind = kindToken.kind === "word" ? kindOfWord(kindToken.text) : undefined;
    if (kind !== "PersistentVolume" && kind !== "PersistentVolumeClaim") {
      this.fail(`expected "pv" or "pvc" after "of", found "${kindToken.text}"`, kindToken);
    }
    const volume = this.ref(kind);
    this.expectKeyword("count", volume.name ?? "");
    this.expectKeyword("is", "count");
    const countToken = this.next();
    if (!/^\d+$/.test(countToken.text) || countToken.kind !== "word") {
      this.fail(`expected a whole number after "count is", found "${countToken.text}"`, countToken);
    }
    return { type: "attachment-count", volume, count: Number(countToken.text) };
  }

  /** `mount of pod REF volume NAME on NODE is healthy|corrupted|absent` */
  private mount(): Condition {
    this.position++;
    this.expectKeyword("of", "mount");
    this.expectKeyword("pod", "of");
    const pod = this.ref("Pod");
    this.expectKeyword("volume", pod.name ?? "");
    const volume = this.word("a volume name");
    this.expectKeyword("on", volume);
    const node = this.word("a node name");
    this.expectKeyword("is", node);
    const healthToken = this.next();
    const health = mountHealths.find((value) => value === healthToken.text.toLowerCase());
    if (health === undefined) {
      this.fail(`expected ${mountHealths.join(", ")} after "is", found "${healthToken.text}"`, healthToken);
    }
    return { type: "mount", pod, volume, node, health };
  }

  /** `KIND REF PROPERTY is VALUE` or `KIND REF is absent|present` */
  private objectCheck(): Condition {
    const kindToken = this.next();
    const kind = kindOfWord(kindToken.text);
    if (kind === undefined) {
      this.fail(
        `"${kindToken.text}" is not a kind, "volumeattachments" or "mount" (kinds: ${knownKindWords()})`,
        kindToken,
      );
    }
    const object = this.ref(kind);
    const propertyToken = this.next();
    if (propertyToken.kind === "word" && propertyToken.text.toLowerCase() === "is") {
      return this.existence(object);
    }
    const property = propertyOf(kind, propertyToken.text);
    if (property === undefined || propertyToken.kind !== "word") {
      const names = [...propertyNames(kind), "is absent", "is present"].join(", ");
      this.fail(`${kind.toLowerCase()} has no property "${propertyToken.text}" (known: ${names})`, propertyToken);
    }
    this.expectKeyword("is", propertyToken.text);
    const valueToken = this.next();
    if (valueToken.kind !== "word" && valueToken.kind !== "string") {
      this.fail(`expected a value after "is"`, valueToken);
    }
    const value = property.values?.find((allowed) => allowed.toLowerCase() === valueToken.text.toLowerCase());
    if (property.values !== undefined && value === undefined) {
      this.fail(
        `"${valueToken.text}" is not a ${kind.toLowerCase()} ${propertyToken.text.toLowerCase()} (one of ${property.values.join(", ")})`,
        valueToken,
      );
    }
    return { type: "property", object, property: propertyToken.text.toLowerCase(), value: value ?? valueToken.text };
  }

  private existence(object: ObjectRef): Condition {
    const token = this.next();
    const word = token.text.toLowerCase();
    if (token.kind !== "word" || (word !== "absent" && word !== "present")) {
      this.fail(`expected "absent" or "present" after "is", found "${token.text}"`, token);
    }
    return { type: "existence", object, present: word === "present" };
  }

  private ref(kind: ObjectRef["kind"]): ObjectRef {
    const token = this.next();
    if (token.kind !== "word" || isKeyword(token.text)) {
      this.fail(`expected the ${kind.toLowerCase()}'s name, found "${token.text}"`, token);
    }
    const parsed = parseRefName(kind, token.text);
    if (!parsed.ok) this.fail(parsed.error, token);
    return parsed.ref;
  }

  private word(what: string): string {
    const token = this.next();
    if (token.kind !== "word" || isKeyword(token.text)) this.fail(`expected ${what}, found "${token.text}"`, token);
    return token.text;
  }

  private expectKeyword(keyword: string, after: string): void {
    const token = this.next();
    if (token.kind !== "word" || token.text.toLowerCase() !== keyword) {
      const found = token.kind === "end" ? "the end" : `"${token.text}"`;
      this.fail(`expected "${keyword}" after "${after}", found ${found}`, token);
    }
  }

  private acceptKeyword(keyword: string): boolean {
    const token = this.peek();
    if (token.kind === "word" && token.text.toLowerCase() === keyword) {
      this.position++;
      return true;
    }
    return false;
  }

  private peek(): Token {
    return this.tokens[this.position] ?? this.end;
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== "end") this.position++;
    return token;
  }

  private fail(reason: string, token: Token): never {
    throw new ConditionSyntaxError(reason, token.column, this.source);
  }
}

const keywords = new Set(["and", "or", "not", "is", "of", "on", "count", "volume"]);

function isKeyword(word: string): boolean {
  return keywords.has(word.toLowerCase());
}
