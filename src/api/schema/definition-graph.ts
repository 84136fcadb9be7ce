/**
 * The reference graph of OpenAPI definitions: which definitions a schema names, and every
 * definition reachable from a set of roots. The generator keeps what the served kinds reach; the
 * OpenAPI documents keep what one group/version's kinds reach.
 */
import type { OpenApiDefinition, OpenApiSchema } from "./openapi-types.ts";
import { refName } from "./openapi-types.ts";

/** The definition names a schema refers to directly (not through other definitions). */
function referencedDefinitions(schema: OpenApiSchema, found: string[] = []): string[] {
  if (schema.$ref !== undefined) found.push(refName(schema.$ref));
  if (schema.items !== undefined) referencedDefinitions(schema.items, found);
  if (schema.additionalProperties !== undefined) referencedDefinitions(schema.additionalProperties, found);
  for (const property of Object.values(schema.properties ?? {})) referencedDefinitions(property, found);
  return found;
}

/** Every definition reachable from the roots, by name; a root or reference that is not defined is an error. */
export function reachableDefinitions(
  lookup: (name: string) => OpenApiDefinition | undefined,
  roots: readonly string[],
): Map<string, OpenApiDefinition> {
  const kept = new Map<string, OpenApiDefinition>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (kept.has(name)) continue;
    const definition = lookup(name);
    if (definition === undefined) throw new Error(`definition ${name} is referenced but not defined`);
    kept.set(name, definition);
    pending.push(...referencedDefinitions(definition));
  }
  return kept;
}
