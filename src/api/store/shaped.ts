/**
 * Objects built in one go from a compiled object literal, so V8 gives each all its fields inside
 * the object. An object that gains its fields one at a time (or a spread of a frozen object, which
 * V8 copies field by field) keeps only the first four inside and the rest in a separate property
 * array: about 24 bytes more per object, on every stored object version. A literal with the same
 * keys in the same order is sized exactly, so each key list gets one small compiled literal,
 * found through a trie of keys (no string is built per object).
 *
 * Key lists come from data, so the compiled literals are bounded: past the bound, for very wide
 * objects and for long keys, objects are built field by field (the same fields in the same order,
 * only larger).
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
  /** How many keys lead here from the root: the width of the object this node's literal builds. */
  readonly depth: number;
}

/**
 * Nodes of one trie at most, so also compiled literals (one per node at most). With keys of at most
 * `maxShapedKeyLength` characters and literals of at most `maxLiteralFields` fields, a full trie
 * holds a few tens of megabytes at worst, whatever keys clients send, and it is never freed.
 */
const defaultMaxKeyNodes = 5000;
/** Widest object built from a literal; wider ones are rare and built field by field. */
const maxLiteralFields = 64;
/**
 * Longest key a trie keeps. Field names of the API are short; a longer key is data (a label, an
 * annotation or a CSI volume attribute can be kilobytes long) and must not stay in memory after
 * the object that carried it is gone.
 */
const maxShapedKeyLength = 64;

/**
 * The trie node after `key`, or undefined when the object cannot be built from a literal: the trie
 * is full and has no such node, the key is too long to keep, or the object is too wide.
 */
export function nextKeyNode(node: KeyNode, key: string): KeyNode | undefined {
  const found = node.next.get(key);
  if (found !== undefined) return found;
  const { budget, depth } = node;
  if (budget.nodesLeft <= 0 || key.length > maxShapedKeyLength || depth >= maxLiteralFields) return undefined;
  const added: KeyNode = { next: new Map(), literal: undefined, budget, depth: depth + 1 };
  node.next.set(key, added);
  budget.nodesLeft--;
  return added;
}

/**
 * The root of a new trie. Stored objects' top levels and their nested objects keep separate tries,
 * so keys from data (labels, annotations) cannot use up the room of the API's own field lists; within
 * one trie the first key lists to arrive keep their places.
 */
export function newKeyTrie(maxNodes = defaultMaxKeyNodes): KeyNode {
  return { next: new Map(), literal: undefined, budget: { nodesLeft: maxNodes }, depth: 0 };
}

/** How many more nodes the trie of `node` can take (for tests). */
export function nodesLeft(node: KeyNode): number {
  return node.budget.nodesLeft;
}

/**
 * An object with `keys[i]` set to `values[i]` for the first `count` of them, in that order, all
 * fields inside the object when `node` is the trie node reached by those keys (undefined: build it
 * field by field). Entries past `count` are ignored, so callers can pass lists they reuse.
 */
export function shapedObject(
  node: KeyNode | undefined,
  keys: readonly string[],
  values: readonly unknown[],
  count: number = keys.length,
): Record<string, unknown> {
  if (node !== undefined && node.depth === count) {
    return (node.literal ?? compileLiteral(node, keys.slice(0, count)))(values);
  }
  const object: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) setOwnField(object, keys[i] as string, values[i]);
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
