/**
 * The parsed form of a condition (`docs/scenarios.md`, "Conditions"): boolean combinations of
 * checks on objects, attachments, mounts, node volume lists and API write counts.
 */
import type { ObjectRef } from "./object-ref.ts";

export type MountHealth = "healthy" | "corrupted" | "absent";

/** `count is 3`, `count is at most 10`, `count is more than 0`. */
export type Comparison = "exactly" | "at most" | "at least" | "more than" | "less than";

export interface CountCheck {
  readonly comparison: Comparison;
  readonly count: number;
}

/** The two volume lists of `node.status`. */
export type NodeVolumeList = "volumesAttached" | "volumesInUse";

/** A volume as a node's lists name it: through its claim or PV, or by its unique name as written. */
export type VolumeRef =
  | { readonly kind: "object"; readonly object: ObjectRef }
  | { readonly kind: "unique-name"; readonly name: string };

export type Condition =
  | { readonly type: "and" | "or"; readonly operands: readonly Condition[] }
  | { readonly type: "not"; readonly operand: Condition }
  /**
   * Inserted by the parser where a name pattern (`pod web-*`) is bound: every use of the pattern
   * inside `body` names the same object, and the condition holds when some object makes `body` hold.
   */
  | { readonly type: "bind"; readonly pattern: ObjectRef; readonly body: Condition }
  /** `pod web-0 phase is Running` */
  | { readonly type: "property"; readonly object: ObjectRef; readonly property: string; readonly value: string }
  /** `pod web-0 is absent` */
  | { readonly type: "existence"; readonly object: ObjectRef; readonly present: boolean }
  /** `volumeattachments of pvc data count is 1` */
  | { readonly type: "attachment-count"; readonly volume: ObjectRef; readonly count: CountCheck }
  /** `mount of pod web-0 volume data on node-a is healthy`; without `on`, on the pod's own node. */
  | {
      readonly type: "mount";
      readonly pod: ObjectRef;
      readonly volume: string;
      readonly node?: string;
      readonly health: MountHealth;
    }
  /** `node node-a volumesAttached contains pvc data` */
  | {
      readonly type: "node-volumes-contain";
      readonly node: ObjectRef;
      readonly list: NodeVolumeList;
      readonly volume: VolumeRef;
    }
  /** `node node-a volumesInUse count is 0` */
  | {
      readonly type: "node-volumes-count";
      readonly node: ObjectRef;
      readonly list: NodeVolumeList;
      readonly count: CountCheck;
    }
  /**
   * `writes to pod web-0 status within 1m count is at most 10`: writes stored (new resourceVersions)
   * to the object, or to every object of the kind when `object.name` is undefined; with `status`,
   * only writes that changed its status; within the last `windowMs` of the run, or since it started.
   */
  | {
      readonly type: "write-count";
      readonly object: ObjectRef;
      readonly status: boolean;
      readonly windowMs?: number;
      readonly count: CountCheck;
    };

/** Whether `actual` satisfies the check. */
export function countHolds(check: CountCheck, actual: number): boolean {
  switch (check.comparison) {
    case "exactly":
      return actual === check.count;
    case "at most":
      return actual <= check.count;
    case "at least":
      return actual >= check.count;
    case "more than":
      return actual > check.count;
    case "less than":
      return actual < check.count;
  }
}

/** The checks (leaves) of a condition, in the order written. */
export function checksOf(condition: Condition): Condition[] {
  switch (condition.type) {
    case "and":
    case "or":
      return condition.operands.flatMap(checksOf);
    case "not":
      return checksOf(condition.operand);
    case "bind":
      return checksOf(condition.body);
    default:
      return [condition];
  }
}
