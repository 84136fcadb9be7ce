/**
 * One Store watch: a backend watch on the resource's key prefix, filtered and translated for the
 * watch's selectors, after the synthetic ADDED events of a watch that started from "now", with
 * periodic BOOKMARK events when asked for.
 */
import type { Clock, Timer } from "../../runtime/clock.ts";
import type { KObject } from "../objects.ts";
import type { BackendEvent, BackendWatch, KVBackend } from "./backend.ts";
import { watchBookmarkIntervalMs } from "./constants.ts";
import { reportHandlerError } from "./handler-errors.ts";
import type { StoreWatch, WatchEvent } from "./store.ts";
import type { WatchFilter } from "./watch-filter.ts";

interface WatchSessionOptions {
  backend: KVBackend;
  prefix: string;
  /** Deliver changes after this revision. */
  fromRevision: number;
  /** Delivered before any change (the current objects, for a watch from "now"). */
  initial: WatchEvent[];
  filter: WatchFilter;
  onEvent: (event: WatchEvent) => void;
  clock: Clock;
  /** The type of the BOOKMARK objects; omit for no bookmarks. */
  bookmarkType?: { kind: string; apiVersion: string };
  onStop: (session: WatchSession) => void;
}

export class WatchSession implements StoreWatch {
  private stopped = false;
  private initial: WatchEvent[] | undefined;
  private bookmarkTimer: Timer | undefined;
  private readonly backendWatch: BackendWatch;
  private readonly options: WatchSessionOptions;

  /** Throws Gone when `fromRevision` has been compacted. */
  constructor(options: WatchSessionOptions) {
    this.options = options;
    this.initial = options.initial.length > 0 ? options.initial : undefined;
    const route = options.filter.route();
    this.backendWatch = options.backend.watch(
      options.prefix,
      options.fromRevision,
      (events) => this.deliver(events),
      route === undefined ? {} : { route },
    );
    // The initial events go first whichever comes first: this microtask or the first backend batch.
    if (this.initial !== undefined) queueMicrotask(() => this.flushInitial());
    if (options.bookmarkType !== undefined) this.scheduleBookmark(options.bookmarkType);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.initial = undefined;
    this.backendWatch.stop();
    this.bookmarkTimer?.cancel();
    this.options.onStop(this);
  }

  private deliver(events: readonly BackendEvent[]): void {
    this.flushInitial();
    for (const event of events) {
      const translated = this.options.filter.translate(event);
      if (translated !== undefined) this.emit(translated);
    }
  }

  private flushInitial(): void {
    const initial = this.initial;
    if (initial === undefined) return;
    this.initial = undefined;
    for (const event of initial) this.emit(event);
  }

  private emit(event: WatchEvent): void {
    if (this.stopped) return;
    try {
      this.options.onEvent(event);
    } catch (error) {
      reportHandlerError(error);
    }
  }

  private scheduleBookmark(type: { kind: string; apiVersion: string }): void {
    this.bookmarkTimer = this.options.clock.setTimer(watchBookmarkIntervalMs, () => {
      if (this.stopped) return;
      this.flushInitial();
      const resourceVersion = String(this.backendWatch.progressRevision());
      const object: KObject = Object.freeze({ ...type, metadata: Object.freeze({ resourceVersion }) });
      this.emit({ type: "BOOKMARK", object });
      if (!this.stopped) this.scheduleBookmark(type);
    });
  }
}
