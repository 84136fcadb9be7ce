/**
 * Notices Events as they are recorded or repeated: after each step, which Events are new and how
 * many more times each repeated one was counted (Kubernetes aggregates repeats into one Event's
 * `count`). Event expectations and the timeline both read these occurrences.
 */
import type { Event } from "../../api/objects.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { compareEvents } from "../../cmd/cluster-events.ts";

export interface EventOccurrence {
  readonly event: Event;
  /** How many times it was recorded since the previous step (1 for a new Event). */
  readonly times: number;
  /** Run time of the step at which it was noticed. */
  readonly atMs: number;
}

export class EventObserver {
  private readonly countsSeen = new Map<string, number>();

  constructor(private readonly cluster: Cluster) {}

  /** The occurrences since the last call, in the order the Events were first recorded. */
  async observe(atMs: number): Promise<EventOccurrence[]> {
    const events = (await this.cluster.client.events.list()).items;
    const changed: Array<{ event: Event; times: number }> = [];
    for (const event of events) {
      const key = `${event.metadata?.namespace ?? ""}/${event.metadata?.name ?? ""}`;
      const count = event.count ?? 1;
      const seen = this.countsSeen.get(key) ?? 0;
      if (count > seen) changed.push({ event, times: count - seen });
      this.countsSeen.set(key, count);
    }
    // Only what changed is sorted: most steps record no Event at all.
    return changed.sort((a, b) => compareEvents(a.event, b.event)).map(({ event, times }) => ({ event, times, atMs }));
  }
}
