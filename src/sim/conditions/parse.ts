/**
 * The condition parser (grammar in `docs/scenarios.md`, "Conditions"): `or` binds loosest, then
 * `and`, then `not`; parentheses group. Kinds, properties and enumerated values are checked here,
 * so a typo is reported when the scenario is read, with the column it is at. Name patterns are
 * bound once per condition (`bind-patterns.ts`).
 */
import { parseDuration } from "../scenario/duration.ts";
import type { Comparison, Condition, CountCheck, MountHealth, NodeVolumeList, VolumeRef } from "./ast.ts";
import { bindPatterns } from "./bind-patterns.ts";
import { kindOfWord, knownKindWords, type ObjectRef, parseRefName } from "./object-ref.ts";
import { propertyNames, propertyOf } from "./properties.ts";
import { ConditionSyntaxError, type Token, tokenize } from "./tokens.ts";

const mountHealths: readonly MountHealth[] = ["healthy", "corrupted", "absent"];
const nodeVolumeLists: readonly NodeVolumeList[] = ["volumesAttached", "volumesInUse"];
/** Two-word comparisons after `count is`; a number right after `is` means exactly. */
const comparisons: readonly Exclude<Comparison, "exactly">[] = ["at most", "at least", "more than", "less than"];

/** A node named in a condition, and the column it is at, for the scenario's name checks. */
interface NodeNameUse {
  readonly name: string;
  readonly column: number;
}

interface ParsedCondition {
  readonly condition: Condition;
  /** The nodes it names (patterns left out). */
  readonly nodes: readonly NodeNameUse[];
}

/** Parses `source`; throws ConditionSyntaxError pointing at the offending column. */
export function parseCondition(source: string): Condition {
  return parseConditionAndNames(source).condition;
}

/** Parses `source` and lists the nodes it names; throws ConditionSyntaxError. */
export function parseConditionAndNames(source: string): ParsedCondition {
  const parser = new Parser(source);
  const condition = parser.condition();
  parser.expectEnd();
  return { condition: bindPatterns(condition), nodes: parser.nodes };
}

class Parser {
  readonly nodes: NodeNameUse[] = [];
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
    if (word === "writes") return this.writeCount();
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
    return { type: "attachment-count", volume, count: this.countCheck() };
  }

  /** After `count`: `is N`, `is at most N`, `is at least N`, `is more than N`, `is less than N`. */
  private countCheck(): CountCheck {
    this.expectKeyword("is", "count");
    let comparison: Comparison = "exactly";
    let after = "count is";
    const first = this.peek();
    const pair = `${first.text} ${this.tokens[this.position + 1]?.text ?? ""}`.toLowerCase();
    const twoWords = comparisons.find((candidate) => candidate === pair);
    if (first.kind === "word" && twoWords !== undefined) {
      this.position += 2;
      comparison = twoWords;
      after = `count is ${twoWords}`;
    }
    const countToken = this.next();
    if (!/^\d+$/.test(countToken.text) || countToken.kind !== "word") {
      const forms = `N, ${comparisons.map((candidate) => `${candidate} N`).join(", ")}`;
      this.fail(`expected a whole number after "${after}" (${forms}), found "${countToken.text}"`, countToken);
    }
    return { comparison, count: Number(countToken.text) };
  }

  /** `writes to KIND [REF] [status] [within DURATION] count is …` */
  private writeCount(): Condition {
    this.position++;
    this.expectKeyword("to", "writes");
    const kindToken = this.next();
    const kind = kindToken.kind === "word" ? kindOfWord(kindToken.text) : undefined;
    if (kind === undefined) {
      this.fail(`expected a kind after "writes to", found "${kindToken.text}" (kinds: ${knownKindWords()})`, kindToken);
    }
    const nameToken = this.peek();
    const named =
      nameToken.kind === "word" && !isKeyword(nameToken.text) && !writeKeywords.has(nameToken.text.toLowerCase());
    const object: ObjectRef = named ? this.ref(kind) : { kind, namespace: "" };
    const status = this.acceptKeyword("status");
    let windowMs: number | undefined;
    if (this.acceptKeyword("within")) {
      const durationToken = this.next();
      windowMs = parseDuration(durationToken.text);
      if (durationToken.kind !== "word" || windowMs === undefined || windowMs <= 0) {
        this.fail(`expected a duration after "within" (30s, 1m, 1h), found "${durationToken.text}"`, durationToken);
      }
    }
    const before = this.tokens[this.position - 1]?.text ?? "";
    this.expectKeyword("count", before);
    return {
      type: "write-count",
      object,
      status,
      ...(windowMs === undefined ? {} : { windowMs }),
      count: this.countCheck(),
    };
  }

  /** After `node REF`: `volumesAttached|volumesInUse contains VOLUME` or `… count is …`. */
  private nodeVolumes(node: ObjectRef, list: NodeVolumeList): Condition {
    const verb = this.next();
    const word = verb.kind === "word" ? verb.text.toLowerCase() : "";
    if (word === "count") return { type: "node-volumes-count", node, list, count: this.countCheck() };
    if (word !== "contains") this.fail(`expected "contains" or "count" after "${list}", found "${verb.text}"`, verb);
    return { type: "node-volumes-contain", node, list, volume: this.volumeRef() };
  }

  /** `pvc REF`, `pv REF`, or a volume's unique name in quotes (`"kubernetes.io/csi/…^…"`). */
  private volumeRef(): VolumeRef {
    const token = this.peek();
    if (token.kind === "string") {
      this.position++;
      return { kind: "unique-name", name: token.text };
    }
    const kind = token.kind === "word" ? kindOfWord(token.text) : undefined;
    if (kind !== "PersistentVolume" && kind !== "PersistentVolumeClaim") {
      this.fail(`expected "pvc NAME", "pv NAME" or a volume's unique name in quotes, found "${token.text}"`, token);
    }
    this.position++;
    return { kind: "object", object: this.ref(kind) };
  }

  /** `mount of pod REF volume NAME [on NODE] is healthy|corrupted|absent` */
  private mount(): Condition {
    this.position++;
    this.expectKeyword("of", "mount");
    this.expectKeyword("pod", "of");
    const pod = this.ref("Pod");
    this.expectKeyword("volume", pod.name ?? "");
    const volume = this.word("a volume name");
    let node: string | undefined;
    if (this.acceptKeyword("on")) {
      const nodeToken = this.peek();
      node = this.word("a node name");
      this.nodes.push({ name: node, column: nodeToken.column });
    } else if (this.peek().text.toLowerCase() !== "is") {
      this.fail(`expected "on" or "is" after "${volume}", found "${this.peek().text}"`, this.peek());
    }
    this.expectKeyword("is", node ?? volume);
    const healthToken = this.next();
    const health = mountHealths.find((value) => value === healthToken.text.toLowerCase());
    if (health === undefined) {
      this.fail(`expected ${mountHealths.join(", ")} after "is", found "${healthToken.text}"`, healthToken);
    }
    return { type: "mount", pod, volume, ...(node === undefined ? {} : { node }), health };
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
    const refToken = this.peek();
    const object = this.ref(kind);
    if (kind === "Node" && object.name !== undefined && !object.name.includes("*")) {
      this.nodes.push({ name: object.name, column: refToken.column });
    }
    const propertyToken = this.next();
    if (propertyToken.kind === "word" && propertyToken.text.toLowerCase() === "is") {
      return this.existence(object);
    }
    const list = nodeVolumeLists.find((candidate) => candidate.toLowerCase() === propertyToken.text.toLowerCase());
    if (kind === "Node" && list !== undefined && propertyToken.kind === "word") return this.nodeVolumes(object, list);
    const property = propertyOf(kind, propertyToken.text);
    if (property === undefined || propertyToken.kind !== "word") {
      const volumeLists = kind === "Node" ? nodeVolumeLists : [];
      const names = [...propertyNames(kind), ...volumeLists, "is absent", "is present"].join(", ");
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
    const propertyName = propertyToken.text.toLowerCase();
    if (propertyName === "node" && valueToken.kind === "word") {
      this.nodes.push({ name: valueToken.text, column: valueToken.column });
    }
    return { type: "property", object, property: propertyName, value: value ?? valueToken.text };
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
/** Words that follow the kind in `writes to KIND …` when no object name is given. */
const writeKeywords = new Set(["status", "within"]);

function isKeyword(word: string): boolean {
  return keywords.has(word.toLowerCase());
}
