/**
 * One component's connection to the API server, as the faults see it: how much longer every request
 * takes (API latency) and whether the component is cut off from the server (a network partition).
 * `FaultyClient` (faulty-client.ts) consults it on every call; cutting it off also ends the watches
 * opened through it, as a dropped TCP connection ends a client-go watch.
 */
import type { Clock } from "../../runtime/clock.ts";

/** Something opened through the connection that must hear when it is cut (a watch). */
interface ConnectionListener {
  connectionLost(reason: string): void;
}

/** The address the simulated API server listens on, as it appears in client errors. */
export const simApiServerAddress = "10.0.255.254:6443";

/** The text Go's net/http client gives when the route to the server is gone. */
export const noRouteToHostText = `dial tcp ${simApiServerAddress}: connect: no route to host`;

/** What client-go's reflector reports when the connection under a watch drops. */
const watchConnectionLostText =
  'an error on the server ("unable to decode an event from the watch stream: http2: client connection lost") ' +
  "has prevented the request from succeeding";

export class ApiConnection {
  private cut = false;
  private readonly listeners = new Set<ConnectionListener>();

  constructor(
    readonly clock: Clock,
    /** Added to every request; read at each call so a change applies to the next one. */
    private readonly latencyMs: () => number,
  ) {}

  get isCutOff(): boolean {
    return this.cut;
  }

  /** Every request fails from now on, and open watches end with an error. */
  cutOff(): void {
    if (this.cut) return;
    this.cut = true;
    for (const listener of [...this.listeners]) listener.connectionLost(watchConnectionLostText);
  }

  /** Requests reach the server again (watches must be opened anew, as after any drop). */
  restore(): void {
    this.cut = false;
  }

  currentLatencyMs(): number {
    return this.latencyMs();
  }

  /** Registers a listener until the returned function is called. */
  listen(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
