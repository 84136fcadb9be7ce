/**
 * A scenario as the runner sees it, after `load.ts` has read and checked the YAML
 * (`docs/scenarios.md` describes the file format). Times are milliseconds of virtual time since the
 * start of the run; every entry keeps the line it came from, so verdicts can point back at the file.
 */
import type { Timers } from "../../api/timers.ts";
import type { ClusterCsiDriver, NodeOptions } from "../../cmd/cluster.ts";
import type { LogLevel } from "../../runtime/logger.ts";
import type { Condition } from "../conditions/ast.ts";
import type { ObjectRef } from "../conditions/object-ref.ts";
import type { FaultParams } from "../faults/fault.ts";

export interface Scenario {
  readonly name: string;
  readonly description?: string;
  /** Absolute path of the file it was read from; "" for a scenario built in code. */
  readonly file: string;
  readonly seed?: number;
  readonly untilMs?: number;
  readonly cluster: ClusterSpec;
  readonly timeline: readonly TimelineStep[];
  readonly expectations: readonly Expectation[];
}

export interface NodeSpec extends NodeOptions {
  readonly name: string;
}

interface NfsExportSpec {
  readonly path: string;
  readonly sizeBytes?: number;
}

export interface NfsServerSpec {
  readonly server: string;
  readonly exports: readonly NfsExportSpec[];
}

export interface RbdImageSpec {
  readonly pool: string;
  readonly image: string;
  readonly sizeBytes: number;
}

export interface DiskSpec {
  readonly id: string;
  readonly sizeBytes: number;
  readonly zone?: string;
  readonly multiAttach?: boolean;
}

export interface StorageSpec {
  readonly nfs: readonly NfsServerSpec[];
  readonly rbdImages: readonly RbdImageSpec[];
  readonly disks: readonly DiskSpec[];
  readonly buckets: readonly string[];
}

export interface ClusterSpec {
  readonly nodes: readonly NodeSpec[];
  readonly storage: StorageSpec;
  /** StorageClass objects, apiVersion and kind filled in. */
  readonly storageClasses: readonly Record<string, unknown>[];
  readonly csiDrivers: readonly ClusterCsiDriver[];
  readonly timers: Partial<Timers>;
  /** kvol's node fencing, cluster-wide (`cluster.fenceAfter`, `--fence-after`); absent: off. */
  readonly fenceAfterMs?: number;
}

export type Taint = NonNullable<NodeOptions["taints"]>[number];

export type Action =
  | { readonly type: "apply"; readonly manifests: string | readonly Record<string, unknown>[]; readonly source: string }
  | {
      readonly type: "delete";
      readonly object: ObjectRef;
      readonly gracePeriodSeconds?: number;
      readonly force: boolean;
    }
  | { readonly type: "patch"; readonly object: ObjectRef; readonly merge: Record<string, unknown> }
  | { readonly type: "taint"; readonly node: string; readonly taint: Taint }
  | { readonly type: "untaint"; readonly node: string; readonly key: string; readonly effect?: string }
  | { readonly type: "cordon" | "uncordon"; readonly node: string }
  /** Fence the node at the storage backends (its RBD and disk I/O fails), or lift it. */
  | { readonly type: "fence" | "unfence"; readonly node: string }
  /** The CSI driver's node plugin registers with, or leaves, the node's kubelet. */
  | { readonly type: "registerCsiDriver" | "unregisterCsiDriver"; readonly node: string; readonly driver: string }
  | { readonly type: "scale"; readonly object: ObjectRef; readonly replicas: number }
  | { readonly type: "addNode"; readonly node: NodeSpec }
  | { readonly type: "fault"; readonly fault: string; readonly params: FaultParams; readonly healAfterMs?: number }
  | { readonly type: "heal"; readonly fault: string; readonly params: FaultParams }
  | {
      readonly type: "write";
      readonly namespace: string;
      readonly pod: string;
      readonly volume: string;
      readonly path: string;
      readonly content: string;
    };

export type ActionType = Action["type"];

export interface TimelineStep {
  readonly atMs: number;
  readonly action: Action;
  readonly note?: string;
  /** 1-based line in the scenario file; 0 when built in code. */
  readonly line: number;
}

export interface EventMatcher {
  readonly reason?: string;
  readonly type?: "Normal" | "Warning";
  /** The involved object; a kind alone (name undefined) matches any object of that kind. */
  readonly object?: ObjectRef;
  readonly messageContains?: string;
}

/** Which log lines a `log` expectation counts. */
export interface LogMatcher {
  /** The logging component: `kubelet`, `attachdetach-controller`, `csi-drivers`, …. */
  readonly component: string;
  /** Only lines about this node (their `node` field). */
  readonly node?: string;
  /** Text the line contains (its message or its `key=value` fields). */
  readonly contains: string;
  readonly level?: LogLevel;
}

interface ExpectationBase {
  /** The expectation as written, for the verdict line. */
  readonly text: string;
  readonly line: number;
}

export type Expectation =
  | (ExpectationBase & {
      readonly kind: "eventually";
      readonly condition: Condition;
      readonly afterMs: number;
      readonly withinMs: number;
    })
  | (ExpectationBase & {
      readonly kind: "never";
      readonly condition: Condition;
      readonly afterMs: number;
      readonly untilMs?: number;
    })
  | (ExpectationBase & { readonly kind: "never-violated"; readonly invariant: string })
  | (ExpectationBase & {
      readonly kind: "event";
      readonly matcher: EventMatcher;
      readonly afterMs: number;
      readonly withinMs?: number;
      readonly count?: number;
    })
  | (ExpectationBase & {
      readonly kind: "log";
      readonly matcher: LogMatcher;
      readonly afterMs: number;
      readonly withinMs?: number;
      readonly count?: number;
    })
  | (ExpectationBase & { readonly kind: "final"; readonly condition: Condition });

export type ExpectationKind = Expectation["kind"];
