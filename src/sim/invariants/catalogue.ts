/**
 * Every invariant, in the order reports list them. Scenarios name them in `never:` expectations;
 * the checker runs them all after every step unless given a selection.
 */
import { bytesNeverLost } from "./bytes-never-lost.ts";
import type { Invariant } from "./invariant.ts";
import { mountedImpliesAttached } from "./mounted-implies-attached.ts";
import { noDetachWhileMounted } from "./no-detach-while-mounted.ts";
import { noLeakedAttachment } from "./no-leaked-attachment.ts";
import { noLeftoversAfterTeardown } from "./no-leftovers.ts";
import { rwoSingleAttach } from "./rwo-single-attach.ts";
import { singleWriter } from "./single-writer.ts";

export const allInvariants: readonly Invariant[] = [
  rwoSingleAttach,
  singleWriter,
  mountedImpliesAttached,
  noDetachWhileMounted,
  bytesNeverLost,
  noLeftoversAfterTeardown,
  noLeakedAttachment,
];

/** The invariant called `name` (`rwo-single-attach`), or undefined when there is none. */
export function invariantNamed(name: string): Invariant | undefined {
  return allInvariants.find((invariant) => invariant.name === name);
}

/** The names, for error messages that list what a scenario may write. */
export function invariantNames(): string[] {
  return allInvariants.map((invariant) => invariant.name);
}
