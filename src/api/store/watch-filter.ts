/**
 * Turns backend events into Kubernetes watch events for one watch's label and field selectors,
 * as kube-apiserver's cacher does: an object that starts matching is ADDED, one that stops
 * matching is DELETED (carrying its last matching content, stamped with the event's revision),
 * and a change to a matching object is MODIFIED.
 */
import type { KObject } from "../objects.ts";
import type { FieldMatcher } from "../selectors/fields.ts";
import type { LabelMatcher } from "../selectors/labels.ts";
import type { BackendEvent, WatchRoute } from "./backend.ts";
import { sealAtRevision } from "./frozen.ts";
import type { WatchEvent } from "./store.ts";

export class WatchFilter {
  private readonly labels: LabelMatcher;
  private readonly fields: FieldMatcher;
  private readonly everything: boolean;

  constructor(labels: LabelMatcher, fields: FieldMatcher) {
    this.labels = labels;
    this.fields = fields;
    this.everything = labels.isEverything() && fields.isEverything();
  }

  /** A delivery route for the backend when the field selector pins a field (see backend.ts `WatchRoute`). */
  route(): WatchRoute | undefined {
    const pinned = this.fields.firstPinned();
    return pinned === undefined ? undefined : { name: pinned.field, value: pinned.value, read: pinned.read };
  }

  matches(object: KObject): boolean {
    return this.everything || (this.labels.matches(object.metadata?.labels) && this.fields.matches(object));
  }

  /** The watch event `event` means for this watch, or undefined when it does not concern it. */
  translate(event: BackendEvent): WatchEvent | undefined {
    if (event.type === "delete")
      return this.matches(event.object) ? { type: "DELETED", object: event.object } : undefined;
    const matchesNow = this.matches(event.object);
    const matchedBefore = event.previous !== undefined && this.matches(event.previous);
    if (matchesNow) return { type: matchedBefore ? "MODIFIED" : "ADDED", object: event.object };
    if (matchedBefore) return { type: "DELETED", object: sealAtRevision(event.previous as KObject, event.revision) };
    return undefined;
  }
}
