/**
 * Unix sockets on a simulated node. A socket is two things, as on Linux: a socket file in the
 * node's filesystem (bound through `SimHost.bindSocket`), and the process listening behind it. This
 * table holds the listening side, per node; a connector finds the listener by path at call time, so a
 * driver that restarts and binds again is reached by the same client, and a stale socket file with
 * nobody behind it refuses connections.
 *
 * - `stop()`: graceful shutdown; the socket file is removed (Go's listener unlinks on Close).
 * - `kill()`: the process dies; calls in flight fail with Unavailable and the stale socket file stays.
 */

import { CsiError } from "../../../../csi/grpc/errors.ts";
import type { CsiImplementations } from "../../../../csi/grpc/services.ts";
import { type Host, isHostError } from "../../../../host/host.ts";
import type { PluginRegistrationService } from "../registration/plugin-registration-api.ts";

/** What a simulated process serves on a socket: a CSI endpoint or a registrar. */
export type SimSocketService =
  | { kind: "csi"; implementations: CsiImplementations }
  | { kind: "registration"; service: PluginRegistrationService };

/** The status a Go client gets when the server's connection drops mid-call. */
const connectionDroppedMessage = "error reading from server: EOF";

/** The host a listener binds on: a SimHost (or anything that can bind a socket file the same way). */
export interface SocketBindingHost extends Host {
  bindSocket(path: string, mode?: number): Promise<void>;
}

export class SimSocketListener {
  private readonly inFlight = new Set<(error: CsiError) => void>();
  private listening = true;

  constructor(
    readonly path: string,
    readonly service: SimSocketService,
    private readonly table: SimSocketTable,
    private readonly host: Host,
  ) {}

  get isListening(): boolean {
    return this.listening;
  }

  /** Runs one call; if the listener is killed first, the caller sees the dropped connection. */
  serve<T>(call: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const drop = (error: CsiError): void => reject(error);
      this.inFlight.add(drop);
      call().then(
        (value) => {
          this.inFlight.delete(drop);
          resolve(value);
        },
        (error: unknown) => {
          this.inFlight.delete(drop);
          reject(error);
        },
      );
    });
  }

  /** Graceful shutdown: stops accepting, removes the socket file; calls in flight finish. */
  async stop(): Promise<void> {
    if (!this.listening) return;
    this.listening = false;
    this.table.forget(this);
    try {
      await this.host.unlink(this.path);
    } catch (err) {
      if (!isHostError(err, "ENOENT")) throw err;
    }
  }

  /** The process dies: calls in flight fail with Unavailable; the socket file stays behind. */
  kill(): void {
    if (!this.listening) return;
    this.listening = false;
    this.table.forget(this);
    const dropped = new CsiError("Unavailable", connectionDroppedMessage);
    for (const drop of [...this.inFlight]) drop(dropped);
    this.inFlight.clear();
  }
}

export class SimSocketTable {
  private readonly listeners = new Map<string, SimSocketListener>();

  /** Whoever listens at `path` now. */
  listenerAt(path: string): SimSocketListener | undefined {
    return this.listeners.get(path);
  }

  /** Paths with a live listener, sorted. */
  paths(): string[] {
    return [...this.listeners.keys()].sort();
  }

  /** A new bind on `path` takes the path over: an older listener there is no longer reachable. */
  add(listener: SimSocketListener): void {
    this.listeners.set(listener.path, listener);
  }

  forget(listener: SimSocketListener): void {
    if (this.listeners.get(listener.path) === listener) this.listeners.delete(listener.path);
  }
}

const tables = new WeakMap<Host, SimSocketTable>();

/** The socket table of one simulated node (created on first use). */
export function simSocketTable(host: Host): SimSocketTable {
  let table = tables.get(host);
  if (table === undefined) {
    table = new SimSocketTable();
    tables.set(host, table);
  }
  return table;
}

/**
 * Starts listening at `socketPath` on `host`: a stale socket file there is removed first (as CSI
 * drivers and node-driver-registrar do on start); any other kind of file is an error, never deleted.
 */
export async function listenOnSimHost(
  host: SocketBindingHost,
  socketPath: string,
  service: SimSocketService,
): Promise<SimSocketListener> {
  await removeStaleSocket(host, socketPath);
  await host.bindSocket(socketPath);
  const table = simSocketTable(host);
  const listener = new SimSocketListener(socketPath, service, table, host);
  table.add(listener);
  return listener;
}

async function removeStaleSocket(host: Host, socketPath: string): Promise<void> {
  let type: string;
  try {
    type = (await host.lstat(socketPath)).type;
  } catch (err) {
    if (isHostError(err, "ENOENT")) return;
    throw err;
  }
  if (type !== "socket") {
    throw new Error(`cannot listen on ${socketPath}: a file that is not a socket is in the way; remove it`);
  }
  await host.unlink(socketPath);
}
