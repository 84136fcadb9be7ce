/**
 * What every control-plane loop is given, the way kube-controller-manager hands its controllers a
 * ControllerContext: one client, one shared informer factory, the clock, the seeded Rng, a
 * logger, the timers, and an event recorder per component name (`persistentvolume-controller`,
 * `attachdetach-controller`). Controllers never import one another; they talk through objects.
 */
import type { Client } from "../api/client/client.ts";
import { EventRecorder } from "../api/events/recorder.ts";
import type { SharedInformerFactory } from "../api/informer/shared-informer-factory.ts";
import type { Timers } from "../api/timers.ts";
import type { Clock } from "../runtime/clock.ts";
import type { Logger } from "../runtime/logger.ts";
import type { Metrics } from "../runtime/metrics.ts";
import type { Rng } from "../runtime/rng.ts";

export interface ControllerContext {
  client: Client;
  informers: SharedInformerFactory;
  clock: Clock;
  rng: Rng;
  logger: Logger;
  timers: Timers;
  /** The control plane's metrics (served on the API server's `/metrics`); absent in tests that keep none. */
  metrics?: Metrics;
}

/** A control loop: `start` registers its handlers and loops; `stop` ends them and waits for workers. */
export interface Controller {
  /** The component name used in logs and as the events' `source.component`. */
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
  /** Its internal state, read-only, as JSON for the debug endpoint (`/debug/controllers/<name>`); absent: it shows none. */
  debugState?(): object;
}

export function recorderFor(context: ControllerContext, component: string): EventRecorder {
  return new EventRecorder({
    client: context.client,
    clock: context.clock,
    logger: context.logger.with({ component }),
    source: { component },
  });
}
