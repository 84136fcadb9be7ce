/**
 * A safety property of the volume lifecycle that must hold after every step of a simulated run
 * (`checker.ts` runs them all). A violation stops the run and is reported with the virtual time, the
 * objects involved and their recent history.
 */
import type { Cluster } from "../../cmd/cluster.ts";

export interface Violation {
  /** The invariant's name, e.g. `rwo-single-attach`. */
  readonly invariant: string;
  /** What is wrong, in a sentence a user can act on. */
  readonly message: string;
  /** What is involved: `PersistentVolume/pv-1`, `node/node-a:/var/lib/kubelet/pods/…`, `disk/disk-3`. */
  readonly objects: readonly string[];
}

export interface Invariant {
  readonly name: string;
  /** One sentence for `docs/scenarios.md`. */
  readonly description: string;
  /** Checks the cluster as it is now; cheap, since it runs after every step. */
  check(cluster: Cluster): readonly Violation[] | Promise<readonly Violation[]>;
}
