/**
 * A fault of the catalogue (`catalogue.ts`): something that goes wrong in a cluster, as storage
 * engineers meet it. Each documents what it models and how Kubernetes reacts, so `docs/faults.md`
 * and `kvol fault --help` read from the same text. Scenarios inject faults on their timeline;
 * `kvol sim explore` draws them at random from `targets`; `kvol fault` injects them into a running cluster.
 */
import type { Cluster } from "../../cmd/cluster.ts";

/** The value of one parameter, as written in a scenario (`node: node-2`, `delay: 30s`). */
export type FaultParamValue = string | number | boolean;

export type FaultParams = Readonly<Record<string, FaultParamValue>>;

export interface FaultParam {
  readonly name: string;
  /** `duration` values are Go-style strings (`30s`, `2m`) or milliseconds. */
  readonly type: "string" | "number" | "boolean" | "duration";
  readonly required: boolean;
  readonly description: string;
  /** The value an optional parameter takes when it is left out. */
  readonly default?: FaultParamValue;
}

export interface FaultDefinition {
  /** Kebab-case, as typed on the command line: `node-power-off`. */
  readonly name: string;
  /** One sentence: what goes wrong in a real cluster. */
  readonly models: string;
  /** How Kubernetes reacts, with the messages and timings a user sees. */
  readonly kubernetesReaction: string;
  /** What `heal` does, for lasting faults (`power returns; the kubelet starts`). */
  readonly healing?: string;
  readonly params: readonly FaultParam[];
  /** Makes the fault happen now. Throws an Error naming the parameter when one is missing or wrong. */
  inject(cluster: Cluster, params: FaultParams): Promise<void>;
  /** Ends a lasting fault (power returns, the helper is installed); absent for one-shot faults. */
  heal?(cluster: Cluster, params: FaultParams): Promise<void>;
  /**
   * Every parameter set `inject` accepts in this cluster now (each node, each attached disk, a few
   * durations), for random exploration to choose from; empty when nothing can be hit.
   */
  targets(cluster: Cluster): Promise<FaultParams[]>;
}
