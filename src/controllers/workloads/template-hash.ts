/**
 * The hash that names a Deployment's ReplicaSets (`web-7d4b9c5f8`) and a StatefulSet's revisions
 * (controller.ComputeHash): FNV-1a (32 bit) of the pod template, plus the collision count when
 * there is one, printed in decimal and spelled with Kubernetes' "safe" alphabet (no vowels, so no
 * words, and no look-alike characters).
 *
 * Kubernetes hashes a Go printout of the template; kvol hashes the template's JSON with sorted
 * keys. The same template therefore always gets the same name here, but not the name a real
 * cluster would give it.
 */
import { podTemplateHashLabel } from "./constants.ts";
import type { PodTemplate } from "./pod-from-template.ts";

/** rand.SafeEncodeString's alphabet. */
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789";
const fnvOffsetBasis32 = 0x811c9dc5;
const fnvPrime32 = 0x01000193;
const utf8 = new TextEncoder();

function fnv1a32(text: string): number {
  let hash = fnvOffsetBasis32;
  for (const byte of utf8.encode(text)) hash = Math.imul(hash ^ byte, fnvPrime32);
  return hash >>> 0;
}

/** JSON with object keys sorted at every level and undefined fields left out. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const fields = Object.entries(value)
    .filter(([, field]) => field !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`);
  return `{${fields.join(",")}}`;
}

/** rand.SafeEncodeString: each character mapped into the safe alphabet by its code. */
function safeEncode(text: string): string {
  let encoded = "";
  for (let index = 0; index < text.length; index++) {
    encoded += safeAlphabet[text.charCodeAt(index) % safeAlphabet.length];
  }
  return encoded;
}

export function computeTemplateHash(template: PodTemplate, collisionCount?: number): string {
  const input = canonicalJson(template) + (collisionCount === undefined ? "" : `#${collisionCount}`);
  return safeEncode(String(fnv1a32(input)));
}

function withoutHashLabel(template: PodTemplate): PodTemplate {
  const labels = template.metadata?.labels;
  if (labels === undefined || !(podTemplateHashLabel in labels)) return template;
  const { [podTemplateHashLabel]: _hash, ...otherLabels } = labels;
  return { ...template, metadata: { ...template.metadata, labels: otherLabels } };
}

/** Same template apart from the pod-template-hash label (deploymentutil.EqualIgnoreHash). */
export function templatesEqualIgnoringHash(a: PodTemplate, b: PodTemplate): boolean {
  return canonicalJson(withoutHashLabel(a)) === canonicalJson(withoutHashLabel(b));
}
