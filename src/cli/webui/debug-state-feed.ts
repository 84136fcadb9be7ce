/**
 * The components' debug states as a feed of changes, shared by every web UI watching one server.
 *
 * The components keep their state in memory and expose it only when asked (the debug endpoints),
 * so the feed asks: every `debugStateSamplePeriodMs` while at least one page listens, never when
 * none does. One read per component per period serves all pages, and a page hears only of the
 * components whose state changed, so a page that is open but idle costs the server nothing of its
 * own. A page that joins gets the last states at once.
 */
import { controllerDebugPathPrefix } from "../../api/debug/debug-state.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";

/**
 * How often the states are read while a page listens: faster than the kubelet's and the
 * attach/detach controller's 100 ms loops would gain little (an operation is started by one pass
 * and its end seen by a later one), slower would miss more of the operations under a second.
 */
export const debugStateSamplePeriodMs = 200;

/** A component the feed reads: `kubelet/NODE`, or the controller's debug name (`attachdetach-controller`). */
export type ComponentName = string;

/** One component's state now (`state`), why it could not be read (`unreadable`), or neither: it is gone. */
export interface DebugUpdate {
  component: ComponentName;
  state?: object;
  unreadable?: string;
}

export interface DebugSources {
  /** The components there are now. */
  components(): Promise<ComponentName[]>;
  /** The component's state; throws with the reason it cannot be read. */
  read(component: ComponentName): Promise<object>;
}

type Listener = (updates: readonly DebugUpdate[]) => void;

export const kubeletComponentPrefix = "kubelet/";

export function kubeletComponent(nodeName: string): ComponentName {
  return `${kubeletComponentPrefix}${nodeName}`;
}

/** The path of the debug endpoint a component answers, for messages. */
export function componentPath(component: ComponentName): string {
  return component.startsWith(kubeletComponentPrefix)
    ? `/api/v1/nodes/${component.slice(kubeletComponentPrefix.length)}/proxy/debug/volumemanager`
    : `${controllerDebugPathPrefix}${component}`;
}

/** An update as compared with the last: the time a state was read at (each carries one) is no change. */
function comparableText(update: DebugUpdate): string {
  if (update.state === undefined || !("time" in update.state)) return JSON.stringify(update);
  const { time: _readAt, ...rest } = update.state as { time: unknown };
  return JSON.stringify({ ...update, state: rest });
}

export class DebugStateFeed {
  private readonly listeners = new Set<Listener>();
  /** Each component's last answer, as the JSON text compared with the next. */
  private readonly last = new Map<ComponentName, { text: string; update: DebugUpdate }>();
  private timer: Timer | undefined;
  private sampling = false;

  constructor(
    private readonly sources: DebugSources,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly periodMs = debugStateSamplePeriodMs,
  ) {}

  /** Calls `listener` with the current states, then with each change; returns how to stop. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    const current = [...this.last.values()].map((entry) => entry.update);
    if (current.length > 0) listener(current);
    if (this.listeners.size === 1) this.schedule(0);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.timer?.cancel();
        this.timer = undefined;
        // A page that comes later must not be told states that may be long out of date.
        this.last.clear();
      }
    };
  }

  get listening(): number {
    return this.listeners.size;
  }

  private schedule(delayMs: number): void {
    if (this.timer !== undefined || this.sampling || this.listeners.size === 0) return;
    this.timer = this.clock.setTimer(delayMs, () => {
      this.timer = undefined;
      void this.sample();
    });
  }

  private async sample(): Promise<void> {
    this.sampling = true;
    try {
      const updates = await this.changes();
      if (updates.length > 0 && this.listeners.size > 0) {
        for (const listener of this.listeners) listener(updates);
      }
    } catch (error) {
      this.logger.warn("reading the components' debug states failed", { error: errorMessage(error) });
    } finally {
      this.sampling = false;
      this.schedule(this.periodMs);
    }
  }

  private async changes(): Promise<DebugUpdate[]> {
    const components = await this.sources.components();
    const answers = await Promise.all(
      components.map(async (component): Promise<DebugUpdate> => {
        try {
          return { component, state: await this.sources.read(component) };
        } catch (error) {
          return { component, unreadable: `${componentPath(component)}: ${errorMessage(error)}` };
        }
      }),
    );
    const updates: DebugUpdate[] = [];
    for (const update of answers) {
      const text = comparableText(update);
      if (this.last.get(update.component)?.text === text) continue;
      this.last.set(update.component, { text, update });
      updates.push(update);
    }
    const present = new Set(components);
    for (const component of [...this.last.keys()]) {
      if (present.has(component)) continue;
      this.last.delete(component);
      updates.push({ component });
    }
    return updates;
  }
}
