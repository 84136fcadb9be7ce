/**
 * A JSON Schema checker for the keywords `docs/scenario.schema.json` uses (type, properties,
 * required, additionalProperties, items, enum, const, pattern, minimum, minLength, minItems,
 * oneOf, anyOf, local $ref), so a test can hold the published schema to what the loader accepts
 * without another dependency. Returns the first problems found, each with its JSON pointer.
 */

export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function typeOf(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typeMatches(value: Json, type: string): boolean {
  const actual = typeOf(value);
  return actual === type || (type === "number" && actual === "integer");
}

export class SchemaChecker {
  constructor(private readonly root: JsonSchema) {}

  /** The problems of `value`; empty when it is valid. */
  check(value: unknown): string[] {
    return this.at(this.root, value as Json, "");
  }

  private at(schema: JsonSchema, value: Json, pointer: string): string[] {
    if (schema === true) return [];
    if (schema === false) return [`${pointer || "/"}: not allowed`];
    const s = schema as Record<string, unknown>;
    if (typeof s.$ref === "string") return this.at(this.resolve(s.$ref), value, pointer);
    const problems: string[] = [...this.scalarProblems(s, value, pointer), ...this.combinerProblems(s, value, pointer)];
    if (typeOf(value) === "object") problems.push(...this.objectProblems(s, value as Record<string, Json>, pointer));
    if (Array.isArray(value) && s.items !== undefined) {
      value.forEach((item, index) => {
        problems.push(...this.at(s.items as JsonSchema, item, `${pointer}/${index}`));
      });
    }
    if (Array.isArray(value) && typeof s.minItems === "number" && value.length < s.minItems) {
      problems.push(`${pointer}: fewer than ${s.minItems} items`);
    }
    return problems;
  }

  private scalarProblems(s: Record<string, unknown>, value: Json, pointer: string): string[] {
    const problems: string[] = [];
    const types = s.type === undefined ? undefined : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    if (types !== undefined && !types.some((type) => typeMatches(value, type))) {
      problems.push(`${pointer}: expected ${types.join(" or ")}, got ${typeOf(value)}`);
    }
    if (Array.isArray(s.enum) && !s.enum.includes(value))
      problems.push(`${pointer}: not one of ${JSON.stringify(s.enum)}`);
    if (s.const !== undefined && s.const !== value) problems.push(`${pointer}: expected ${JSON.stringify(s.const)}`);
    if (typeof value === "string") {
      if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(value)) {
        problems.push(`${pointer}: ${JSON.stringify(value)} does not match ${s.pattern}`);
      }
      if (typeof s.minLength === "number" && value.length < s.minLength) problems.push(`${pointer}: too short`);
    }
    if (typeof value === "number" && typeof s.minimum === "number" && value < s.minimum) {
      problems.push(`${pointer}: below ${s.minimum}`);
    }
    return problems;
  }

  private combinerProblems(s: Record<string, unknown>, value: Json, pointer: string): string[] {
    const problems: string[] = [];
    if (Array.isArray(s.oneOf)) {
      const matching = (s.oneOf as JsonSchema[]).filter(
        (option) => this.at(option, value, pointer).length === 0,
      ).length;
      if (matching !== 1) problems.push(`${pointer}: matches ${matching} of the oneOf choices, expected exactly 1`);
    }
    if (
      Array.isArray(s.anyOf) &&
      !(s.anyOf as JsonSchema[]).some((option) => this.at(option, value, pointer).length === 0)
    ) {
      problems.push(`${pointer}: matches none of the anyOf choices`);
    }
    return problems;
  }

  private objectProblems(s: Record<string, unknown>, value: Record<string, Json>, pointer: string): string[] {
    const problems: string[] = [];
    const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
    for (const key of (s.required ?? []) as string[]) {
      if (!(key in value)) problems.push(`${pointer}: ${key} is required`);
    }
    for (const [key, item] of Object.entries(value)) {
      const child = `${pointer}/${key}`;
      const propertySchema = properties[key];
      if (propertySchema !== undefined) problems.push(...this.at(propertySchema, item, child));
      else if (s.additionalProperties !== undefined) {
        problems.push(...this.at(s.additionalProperties as JsonSchema, item, child));
      }
    }
    return problems;
  }

  private resolve(ref: string): JsonSchema {
    if (!ref.startsWith("#/")) throw new Error(`only local $ref is supported, got ${ref}`);
    let node: unknown = this.root;
    for (const part of ref.slice(2).split("/")) node = (node as Record<string, unknown>)[part];
    if (node === undefined) throw new Error(`$ref ${ref} points at nothing`);
    return node as JsonSchema;
  }
}
