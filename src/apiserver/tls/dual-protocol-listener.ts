/**
 * Where the API server listens. With a certificate: one port that speaks both HTTP and HTTPS, told apart by the first byte a client sends (22, a TLS
 * handshake record, or the letter of an HTTP method). kubectl needs TLS to send its bearer token;
 * kvol's own clients, curl and client libraries may use plain HTTP on the same address.
 */
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type RequestListener,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from "node:net";
import type { Duplex } from "node:stream";

/** Takes over a request to switch protocols (`Connection: Upgrade`: exec and attach streams). */
export type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

function withUpgrades<T extends HttpServer>(server: T, onUpgrade: UpgradeListener | undefined): T {
  if (onUpgrade !== undefined) server.on("upgrade", onUpgrade);
  return server;
}

/** The content type byte of a TLS handshake record: the first byte of every ClientHello. */
const tlsHandshakeRecordType = 22;

export interface TlsIdentity {
  certificatePem: string;
  privateKeyPem: string;
}

interface Listener {
  listen(port: number, host: string): Promise<AddressInfo>;
  /** Stops accepting connections and ends the open ones. */
  close(): Promise<void>;
}

function listenOn(server: NetServer, port: number, host: string): Promise<AddressInfo> {
  return new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Plain HTTP only: a server started without a certificate. */
export function createHttpListener(handler: RequestListener, onUpgrade?: UpgradeListener): Listener {
  const server = withUpgrades(createHttpServer(handler), onUpgrade);
  return {
    listen: (port, host) => listenOn(server, port, host),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export function createDualProtocolListener(
  handler: RequestListener,
  tls: TlsIdentity,
  onUpgrade?: UpgradeListener,
): Listener {
  const http = withUpgrades(createHttpServer(handler), onUpgrade);
  const https = withUpgrades(
    createHttpsServer({ cert: tls.certificatePem, key: tls.privateKeyPem }, handler),
    onUpgrade,
  );
  const sockets = new Set<Socket>();
  const dispatch = (socket: Socket): void => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.once("readable", () => {
      const first: Buffer | null = socket.read(1);
      if (first === null) return;
      socket.unshift(first);
      (first[0] === tlsHandshakeRecordType ? https : http).emit("connection", socket);
    });
  };
  // Node's HTTP servers turn Nagle's algorithm off on the sockets they accept; these sockets are
  // accepted here and handed over, so it is turned off here, or an answer written in two pieces
  // waits for the client's delayed ACK.
  const server = createNetServer({ noDelay: true }, dispatch);
  return {
    listen: (port, host) => listenOn(server, port, host),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }),
  };
}
