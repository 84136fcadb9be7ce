/**
 * The fixture the client, informer and event tests share: a memory store on a VirtualClock, an
 * in-process client over it, and a logger whose records the test can read.
 */
import { Logger, MemorySink } from "../../../runtime/logger.ts";
import { Rng } from "../../../runtime/rng.ts";
import { VirtualClock } from "../../../runtime/virtual-clock.ts";
import type { Pod } from "../../objects.ts";
import type { KubeStore } from "../../store/kube-store.ts";
import { createMemoryStore } from "../../store/memory-store.ts";
import { InProcessClient } from "../in-process-client.ts";

export interface TestApi {
  clock: VirtualClock;
  rng: Rng;
  store: KubeStore;
  client: InProcessClient;
  logs: MemorySink;
  logger: Logger;
}

export function newTestApi(seed = 1): TestApi {
  const clock = new VirtualClock();
  const rng = new Rng(seed);
  const store = createMemoryStore({ clock, random: rng.stream("store") });
  const logs = new MemorySink();
  const logger = new Logger({ clock, sink: logs, level: "debug" });
  return { clock, rng, store, client: new InProcessClient(store), logs, logger };
}

/** A minimal valid pod, optionally bound to a node and using claims. */
export function testPod(namespace: string, name: string, nodeName?: string, claims: readonly string[] = []): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, labels: { app: name } },
    spec: {
      containers: [{ name: "main", image: "busybox" }],
      ...(nodeName === undefined ? {} : { nodeName }),
      ...(claims.length === 0
        ? {}
        : { volumes: claims.map((claimName, index) => ({ name: `v${index}`, persistentVolumeClaim: { claimName } })) }),
    },
  };
}
