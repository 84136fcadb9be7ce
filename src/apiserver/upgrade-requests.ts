/**
 * Requests to switch protocols (`kubectl exec` and `attach`: a WebSocket, or SPDY from older
 * kubectl). Node's HTTP server hands them over as a raw socket; they go through the same
 * authentication and routing as every request, with a response written on that socket, so a
 * refusal is an ordinary Status. A handler that accepts the upgrade takes the socket over
 * (`takeUpgrade`) and passes bytes both ways itself.
 */
import { type IncomingMessage, type RequestListener, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "../runtime/logger.ts";
import type { UpgradeListener } from "./tls/dual-protocol-listener.ts";

export interface Upgrade {
  socket: Duplex;
  /** Bytes the client sent after its request head. */
  head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, Upgrade>();

export function upgradeListener(handler: RequestListener, logger: Logger): UpgradeListener {
  return (request, socket, head) => {
    socket.on("error", (error) => logger.debug("upgraded connection failed", { url: request.url, error }));
    upgrades.set(request, { socket, head });
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.on("finish", () => socket.end());
    handler(request, response);
  };
}

/** Takes the socket of an upgrade over from its response; undefined for an ordinary request. */
export function takeUpgrade(request: IncomingMessage, response: ServerResponse): Upgrade | undefined {
  const upgrade = upgrades.get(request);
  if (upgrade === undefined) return undefined;
  response.detachSocket(upgrade.socket as Socket);
  return upgrade;
}
