/**
 * Field selectors (`spec.nodeName=node-1,status.phase!=Succeeded`): comma-joined `=`, `==` or `!=`
 * terms over the kind's selectable fields (`selectable-fields.ts`). Values may escape `\`, `,` and
 * `=` with a backslash, as Kubernetes' `fields.ParseSelector` allows.
 */
import { badRequest } from "../errors.ts";
import { type FieldReader, selectableFields } from "./selectable-fields.ts";

interface FieldRequirement {
  field: string;
  operator: "=" | "!=";
  value: string;
}

interface CompiledRequirement extends FieldRequirement {
  read: FieldReader;
}

/** A compiled field selector for one kind. Immutable; share it freely. */
export class FieldMatcher {
  readonly requirements: readonly FieldRequirement[];
  private readonly compiled: readonly CompiledRequirement[];

  constructor(compiled: readonly CompiledRequirement[]) {
    this.compiled = compiled;
    this.requirements = compiled.map(({ field, operator, value }) => ({ field, operator, value }));
  }

  matches(obj: object): boolean {
    for (const requirement of this.compiled) {
      const equal = requirement.read(obj) === requirement.value;
      if (equal !== (requirement.operator === "=")) return false;
    }
    return true;
  }

  isEverything(): boolean {
    return this.compiled.length === 0;
  }

  /** The value `field` must equal, when the selector pins it (`spec.nodeName=node-1`); for indexes. */
  exactValue(field: string): string | undefined {
    return this.compiled.find((r) => r.field === field && r.operator === "=")?.value;
  }

  /** The first field the selector pins to one value, with its reader: what a watch can be routed by. */
  firstPinned(): { field: string; value: string; read: FieldReader } | undefined {
    const pinned = this.compiled.find((r) => r.operator === "=");
    return pinned === undefined ? undefined : { field: pinned.field, value: pinned.value, read: pinned.read };
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeValue(r.value)}`).join(",");
  }
}

function escapeValue(value: string): string {
  return value.replace(/[\\,=]/g, (char) => `\\${char}`);
}

/** Splits on commas that are not escaped; keeps the escapes for the term parser. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (char === "\\") i++;
    else if (char === ",") {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

function unescapeValue(term: string, escaped: string): string {
  let value = "";
  for (let i = 0; i < escaped.length; i++) {
    const char = escaped.charAt(i);
    if (char !== "\\") {
      value += char;
      continue;
    }
    const next = escaped.charAt(i + 1);
    if (next !== "\\" && next !== "," && next !== "=") {
      throw badRequest(`invalid field selector: '${term}'; invalid escape sequence '\\${next}' in value`);
    }
    value += next;
    i++;
  }
  return value;
}

function parseTerm(term: string): FieldRequirement {
  // The first operator wins; `!=` and `==` are tried before `=` at each position.
  for (let i = 0; i < term.length; i++) {
    const operatorText = term.startsWith("!=", i) ? "!=" : term.startsWith("==", i) ? "==" : term[i] === "=" ? "=" : "";
    if (operatorText === "") continue;
    const field = term.slice(0, i).trim();
    if (field === "") throw badRequest(`invalid field selector: '${term}'; the field name is missing`);
    return {
      field,
      operator: operatorText === "!=" ? "!=" : "=",
      value: unescapeValue(term, term.slice(i + operatorText.length)),
    };
  }
  throw badRequest(`invalid field selector: '${term}'; can't understand '${term}'`);
}

/** Parses the syntax only, without checking the fields against a kind. */
export function parseFieldRequirements(text: string | undefined): FieldRequirement[] {
  if (text === undefined || text.trim() === "") return [];
  return splitTerms(text)
    .filter((term) => term.trim() !== "")
    .map(parseTerm);
}

/**
 * Parses a field selector for `kind`. Throws BadRequest `field label not supported: <field>`
 * (Kubernetes' wording) for a field the kind cannot be selected by.
 */
export function parseFieldSelector(kind: string, text: string | undefined): FieldMatcher {
  const fields = selectableFields(kind);
  const compiled = parseFieldRequirements(text).map((requirement) => {
    const read = fields.get(requirement.field);
    if (read === undefined) throw badRequest(`field label not supported: ${requirement.field}`);
    return { ...requirement, read };
  });
  return new FieldMatcher(compiled);
}
