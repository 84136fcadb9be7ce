/**
 * What `writes to …` conditions read: how many writes were stored for an object or a whole kind
 * over a stretch of the run (`runner/write-recorder.ts` records them while a scenario runs).
 */
import type { KindName } from "../../api/objects.ts";

export interface WriteQuery {
  readonly kind: KindName;
  /** `namespace/name` (`name` for cluster-scoped kinds); undefined for every object of the kind. */
  readonly key?: string;
  /** Only writes that changed the object's status. */
  readonly status: boolean;
  /** Cluster clock time from which writes count; undefined for every write since recording began. */
  readonly sinceMs?: number;
}

export interface WriteCounts {
  count(query: WriteQuery): number;
  /** The `namespace/name` keys of the kind's objects that were written, for binding name patterns. */
  keysOf(kind: KindName): readonly string[];
}
