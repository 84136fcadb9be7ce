/**
 * How scenarios and conditions name an object: a kind word as kubectl takes it (`pod`, `pvc`, `pv`,
 * `statefulset`, `sts`, `node`), then `name` or `namespace/name`. A name may hold `*` to stand for
 * any characters (the generated names of a Deployment's pods); a kind word alone names every object
 * of the kind, which event expectations use.
 */
import type { KindName } from "../../api/objects.ts";
import { RESOURCES, resolveResourceName } from "../../api/resources.ts";
import { defaultNamespace } from "../../cmd/constants.ts";

export interface ObjectRef {
  readonly kind: KindName;
  /** "" for cluster-scoped kinds. */
  readonly namespace: string;
  /** Undefined when only the kind was given; may contain `*`. */
  readonly name?: string;
}

type ParsedRef = { ok: true; ref: ObjectRef } | { ok: false; error: string };

const namePattern = /^[a-z0-9*]([-a-z0-9.*]*[a-z0-9*])?$/;

/** The kind a kubectl-style word names (`pvc`, `pods`, `StatefulSet`), or undefined. */
export function kindOfWord(word: string): KindName | undefined {
  return resolveResourceName(word)?.kind;
}

export function knownKindWords(): string {
  return RESOURCES.map((resource) => resource.kind.toLowerCase()).join(", ");
}

/** Reads `name` or `namespace/name` for `kind`; namespaced kinds default to `default`. */
export function parseRefName(kind: KindName, text: string): ParsedRef {
  const namespaced = resolveResourceName(kind)?.namespaced ?? false;
  const parts = text.split("/");
  if (parts.length > 2) return { ok: false, error: `"${text}" is not a name or namespace/name` };
  const [first = "", second] = parts;
  if (second !== undefined && !namespaced) {
    return { ok: false, error: `${kind.toLowerCase()} is cluster-scoped: name it without a namespace, not "${text}"` };
  }
  const name = second ?? first;
  const namespace = namespaced ? (second === undefined ? defaultNamespace : first) : "";
  for (const part of second === undefined ? [name] : [first, name]) {
    if (!namePattern.test(part)) {
      return { ok: false, error: `"${part}" is not a Kubernetes name (lower-case letters, digits, "-" and ".")` };
    }
  }
  return { ok: true, ref: { kind, namespace, name } };
}

/** Reads `pod web-0`, `pvc sock-shop/user-pvc` or, when `kindAlone` is allowed, `pod`. */
export function parseObjectRef(text: string, options: { kindAlone?: boolean } = {}): ParsedRef {
  const words = text.trim().split(/\s+/);
  const [kindWord = "", nameText] = words;
  const kind = kindOfWord(kindWord);
  if (kind === undefined) {
    return { ok: false, error: `"${kindWord}" is not a kind (known: ${knownKindWords()})` };
  }
  if (words.length > 2) return { ok: false, error: `"${text}" has more than a kind and a name` };
  if (nameText === undefined) {
    if (options.kindAlone) return { ok: true, ref: { kind, namespace: "" } };
    return { ok: false, error: `"${text}" names no object: write "${kindWord} NAME"` };
  }
  return parseRefName(kind, nameText);
}

/** `pod default/web-0`, `pv user-pv`, `pod` (kind alone). */
export function formatObjectRef(ref: ObjectRef): string {
  const kind = ref.kind.toLowerCase();
  if (ref.name === undefined) return kind;
  return ref.namespace === "" ? `${kind} ${ref.name}` : `${kind} ${ref.namespace}/${ref.name}`;
}

/** Whether `name` matches the ref's name, where `*` stands for any run of characters. */
export function refNameMatches(ref: ObjectRef, name: string): boolean {
  if (ref.name === undefined) return true;
  if (!ref.name.includes("*")) return ref.name === name;
  const pattern = ref.name.split("*").map(escapeRegExp).join(".*");
  return new RegExp(`^${pattern}$`).test(name);
}

export function isPattern(ref: ObjectRef): boolean {
  return ref.name === undefined || ref.name.includes("*");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
