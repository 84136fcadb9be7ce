/**
 * A deadline on making a new TCP connection, for the HTTP client: Node's socket timer is wall
 * time, so it lives here with the other real timers (the determinism rule keeps them in
 * src/runtime/). A request whose socket is already connected (a reused keep-alive connection)
 * gets no deadline.
 */
import type { ClientRequest } from "node:http";
import type { Socket } from "node:net";
import { msPerSecond } from "./duration.ts";

/** Fails `request` with a connect error (ETIMEDOUT) when `socket` is not connected within `timeoutMs`. */
export function limitConnectTime(request: ClientRequest, socket: Socket, timeoutMs: number): void {
  if (!socket.connecting) return;
  const onTimeout = (): void => {
    const error = new Error(`no connection was made within ${timeoutMs / msPerSecond} s`);
    request.destroy(Object.assign(error, { code: "ETIMEDOUT", syscall: "connect" }));
  };
  socket.setTimeout(timeoutMs, onTimeout);
  socket.once("connect", () => {
    socket.setTimeout(0);
    socket.removeListener("timeout", onTimeout);
  });
}
