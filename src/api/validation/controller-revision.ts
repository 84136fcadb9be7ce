/**
 * ControllerRevision validation (apps' ValidateControllerRevision): the recorded state (`data`) is
 * mandatory and never changes, and the revision number is not negative.
 */
import type { FieldCause } from "../errors.ts";
import { checkNonNegative, immutableMessage } from "./field-checks.ts";
import { invalid, required } from "./field-errors.ts";
import { type JsonObject, readInteger } from "./json-reader.ts";
import { nameIsDnsSubdomain } from "./names.ts";
import { type MetaRules, validateObjectMeta, validateObjectMetaUpdate } from "./object-meta.ts";
import { semanticEqual } from "./semantic-equal.ts";

const revisionMeta: MetaRules = { namespaced: true, nameRule: nameIsDnsSubdomain };

export function validateControllerRevision(revision: JsonObject, out: FieldCause[]): void {
  validateObjectMeta(revision.metadata, revisionMeta, out);
  if (revision.data === undefined || revision.data === null) out.push(required("data", "data is mandatory"));
  const number = readInteger(revision.revision, "revision", out);
  checkNonNegative(number, "revision", out);
}

export function validateControllerRevisionUpdate(revision: JsonObject, old: JsonObject, out: FieldCause[]): void {
  validateObjectMetaUpdate(revision.metadata, old.metadata, out);
  validateControllerRevision(revision, out);
  if (!semanticEqual(revision.data, old.data)) out.push(invalid("data", revision.data, immutableMessage));
}
