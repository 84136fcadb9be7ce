/**
 * The parsed form of a condition (`docs/scenarios.md`, "Conditions"): boolean combinations of
 * checks on objects, attachments and mounts.
 */
import type { ObjectRef } from "./object-ref.ts";

export type MountHealth = "healthy" | "corrupted" | "absent";

export type Condition =
  | { readonly type: "and" | "or"; readonly operands: readonly Condition[] }
  | { readonly type: "not"; readonly operand: Condition }
  /** `pod web-0 phase is Running` */
  | { readonly type: "property"; readonly object: ObjectRef; readonly property: string; readonly value: string }
  /** `pod web-0 is absent` */
  | { readonly type: "existence"; readonly object: ObjectRef; readonly present: boolean }
  /** `volumeattachments of pvc data count is 1` */
  | { readonly type: "attachment-count"; readonly volume: ObjectRef; readonly count: number }
  /** `mount of pod web-0 volume data on node-a is healthy` */
  | {
      readonly type: "mount";
      readonly pod: ObjectRef;
      readonly volume: string;
      readonly node: string;
      readonly health: MountHealth;
    };
