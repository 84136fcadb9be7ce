/**
 * Objects built in one go from a compiled object literal, so V8 gives each all its fields inside
 * the object. An object that gains its fields one at a time (or a spread of a frozen object, which
 * V8 copies field by field) keeps only the first four inside and the rest in a separate property
 * array: about 24 bytes more per object, on every stored object version. A literal with the same
 * keys in the same order is sized exactly, so each key list gets one small compiled literal,
 * found through a trie of keys (no string is built per object).
 *
 * Key lists come from data, so the compiled literals are bounded: past the bound, or for very
 * wide objects, objects are built field by field as before (correct, only larger).
 */

import { setOwnField } from "../own-field.ts";

type Literal = (values: readonly unknown[]) => Record<string, unknown>;

/** A trie's room for more nodes, shared by all its nodes. */
interface Budget {
  nodesLeft: number;
}

export interface KeyNode {
  readonly next: Map<string, KeyNode>;
  literal: Literal | undefined;
  readonly budget: Budget;
}

/** Nodes of one trie at most (so also compiled literals, one per node at most: a few hundred bytes each). */
const maxKeyNodes = 5000;
/** Widest object built from a literal; wider ones are rare and built field by field. */
const maxLiteralFields = 64;

/** The trie node after `key`, or undefined when the trie is full and has no such node. */
export function nextKeyNode(node: KeyNode, key: string): KeyNode | undefined {
  const found = node.next.get(key);
  if (found !== undefined || node.budget.nodesLeft <= 0) return found;
  const added: KeyNode = { next: new Map(), literal: undefined, budget: node.budget };
  node.next.set(key, added);
  node.budget.nodesLeft--;
  return added;
}

/** The root of a new trie: each use (with its own kind of keys) keeps its own, so one cannot crowd out another. */
export function newKeyTrie(): KeyNode {
  return { next: new Map(), literal: undefined, budget: { nodesLeft: maxKeyNodes } };
}

/**
 * An object with `keys[i]` set to `values[i]`, in that order, all fields inside the object when
 * `node` is the trie node reached by `keys` (undefined: build it field by field).
 */
export function shapedObject(
  node: KeyNode | undefined,
  keys: readonly string[],
  values: readonly unknown[],
): Record<string, unknown> {
  if (node !== undefined && keys.length <= maxLiteralFields) {
    return (node.literal ?? compileLiteral(node, keys))(values);
  }
  const object: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) setOwnField(object, keys[i] as string, values[i]);
  return object;
}

function compileLiteral(node: KeyNode, keys: readonly string[]): Literal {
  // A quoted `"__proto__": v` in a literal sets the prototype; a computed key defines the field.
  const fields = keys.map((key, i) => {
    const name = JSON.stringify(key);
    return key === "__proto__" ? `[${name}]: v[${i}]` : `${name}: v[${i}]`;
  });
  const literal = new Function("v", `return { ${fields.join(", ")} };`) as Literal;
  node.literal = literal;
  return literal;
}
