/**
 * Every object write of a run, in revision order: `(revision, kind, namespace/name, verb)`. Two
 * runs with the same seed and inputs must produce the same log; the determinism tests compare them.
 * It watches every kind from the revision it starts at, so it sees the writes of every component.
 */
import type { Client, Watch } from "../api/client/client.ts";
import { type KindName, objectKey } from "../api/objects.ts";
import { RESOURCES } from "../api/resources.ts";
import type { Logger } from "../runtime/logger.ts";

export type WriteVerb = "create" | "update" | "delete";

export interface WriteRecord {
  revision: number;
  kind: KindName;
  /** `namespace/name`, or `name` for cluster-scoped kinds. */
  key: string;
  verb: WriteVerb;
}

const verbs: Readonly<Record<string, WriteVerb>> = { ADDED: "create", MODIFIED: "update", DELETED: "delete" };

export class WriteLog {
  private readonly records: WriteRecord[] = [];
  private watches: Watch[] = [];

  /** Starts recording every write after `fromRevision`. */
  async start(client: Client, fromRevision: number, logger: Logger): Promise<void> {
    this.watches = await Promise.all(
      RESOURCES.map((type) =>
        client.resource(type.kind).watch({ resourceVersion: String(fromRevision) }, (event) => {
          const verb = verbs[event.type];
          if (verb === undefined) {
            if (event.type === "ERROR") logger.error("write log lost its watch", { kind: type.kind });
            return;
          }
          const revision = Number(event.object.metadata?.resourceVersion);
          this.records.push({ revision, kind: type.kind, key: objectKey(event.object), verb });
        }),
      ),
    );
  }

  stop(): void {
    for (const watch of this.watches) watch.stop();
    this.watches = [];
  }

  /** The writes seen so far, oldest first. */
  entries(): WriteRecord[] {
    return [...this.records].sort((a, b) => a.revision - b.revision);
  }
}
