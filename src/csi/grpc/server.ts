/**
 * Serves CSI implementations on a Unix domain socket with @grpc/grpc-js, the way a real driver
 * listens on `CSI_ENDPOINT`: plaintext HTTP/2, any `:authority` accepted, every service on one
 * socket. A thrown CsiError becomes the gRPC status with the same code and message.
 */
import { lstat, unlink } from "node:fs/promises";
import {
  type handleUnaryCall,
  Server,
  ServerCredentials,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { csiServiceDefinition } from "../proto/load.ts";
import { type CallOutcome, type CsiCallHook, callRecordOf, requestSnapshot } from "./call-log.ts";
import { dispatchRpc, implementationOf } from "./dispatch.ts";
import { socketPathOf } from "./endpoint.ts";
import { toCsiError } from "./errors.ts";
import { type CsiRpc, csiRpcsOf, responseAsReceived } from "./rpcs.ts";
import { type CsiImplementations, csiServiceNames } from "./services.ts";

interface CsiServerOptions extends CsiImplementations {
  /** `unix:///abs/path/csi.sock`. */
  endpoint: string;
  /** Sees every answered call, as the client decoded it would see it. */
  onCall?: CsiCallHook;
}

export interface CsiServer {
  readonly endpoint: string;
  /** Stops accepting calls and resolves once the calls in flight have been answered. */
  stop(): Promise<void>;
  /** Drops the socket and every call in flight at once, as when the driver process dies. */
  kill(): void;
}

/**
 * Binds the socket and starts serving. A socket file left by an earlier run is removed first (as
 * drivers do on start); any other kind of file at that path is an error, never deleted.
 */
export async function serveCsi(options: CsiServerOptions): Promise<CsiServer> {
  const socketPath = socketPathOf(options.endpoint);
  await removeStaleSocket(socketPath);
  const server = new Server();
  for (const service of csiServiceNames) {
    const implementation = implementationOf(options, service);
    if (implementation === undefined) continue;
    // Unregistered services answer Unimplemented from grpc-js itself.
    server.addService(
      csiServiceDefinition(service),
      serviceHandlers(csiRpcsOf(service), implementation, options.onCall),
    );
  }
  await bind(server, options.endpoint);
  return {
    endpoint: options.endpoint,
    stop: () => shutDownGracefully(server),
    kill: () => server.forceShutdown(),
  };
}

function serviceHandlers(
  rpcs: readonly CsiRpc[],
  implementation: object,
  onCall: CsiCallHook | undefined,
): UntypedServiceImplementation {
  return Object.fromEntries(rpcs.map((rpc) => [rpc.method, unaryHandler(rpc, implementation, onCall)]));
}

function unaryHandler(
  rpc: CsiRpc,
  implementation: object,
  onCall: CsiCallHook | undefined,
): handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const snapshot = onCall === undefined ? undefined : requestSnapshot(call.request);
    answer(rpc, implementation, call.request).then((outcome) => {
      sendOutcome(callback, outcome);
      onCall?.(callRecordOf(rpc, snapshot, outcome));
    });
  };
}

/** Runs the handler and encodes its answer up front, so a bad response is reported like a thrown error. */
async function answer(rpc: CsiRpc, implementation: object, request: unknown): Promise<CallOutcome> {
  const outcome = await dispatchRpc(implementation, rpc, request);
  if ("error" in outcome) return outcome;
  try {
    return { response: responseAsReceived(rpc, outcome.response) };
  } catch (error) {
    return { error: toCsiError(error) };
  }
}

function sendOutcome(callback: sendUnaryData<unknown>, outcome: CallOutcome): void {
  if ("error" in outcome) callback({ code: outcome.error.grpcCode, details: outcome.error.statusMessage });
  else callback(null, outcome.response);
}

async function removeStaleSocket(socketPath: string): Promise<void> {
  const existing = await lstat(socketPath).catch((error: unknown) => {
    if (isMissingFileError(error)) return undefined;
    throw error;
  });
  if (existing === undefined) return;
  if (!existing.isSocket()) {
    throw new Error(`cannot listen on ${socketPath}: a file that is not a socket is in the way; remove it`);
  }
  await unlink(socketPath);
}

function isMissingFileError(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}

function bind(server: Server, endpoint: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.bindAsync(endpoint, ServerCredentials.createInsecure(), (error) => {
      if (error === null) resolve();
      else reject(new Error(`cannot listen on CSI endpoint ${endpoint}: ${error.message}`));
    });
  });
}

function shutDownGracefully(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.tryShutdown((error) => {
      if (error === undefined) resolve();
      else reject(error);
    });
  });
}
