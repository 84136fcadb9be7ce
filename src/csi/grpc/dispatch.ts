/**
 * Running one RPC against a driver's implementation, shared by the socket server and the
 * in-process transport so both map failures identically.
 */
import type { CsiServiceName } from "../proto/load.ts";
import type { CallOutcome } from "./call-log.ts";
import { CsiError, toCsiError } from "./errors.ts";
import type { CsiRpc } from "./rpcs.ts";
import type { CsiImplementations } from "./services.ts";

type UntypedHandler = (request: unknown) => Promise<unknown>;

/** The text grpc-js answers with for a method nobody registered, so both transports agree. */
export function unimplementedError(rpc: CsiRpc): CsiError {
  return new CsiError("Unimplemented", `The server does not implement the method ${rpc.path}`);
}

/** The implementation object serving a service on this endpoint, if any. */
export function implementationOf(implementations: CsiImplementations, service: CsiServiceName): object | undefined {
  if (service === "Identity") return implementations.identity;
  if (service === "Controller") return implementations.controller;
  return implementations.node;
}

function handlerOf(implementation: object, rpc: CsiRpc): UntypedHandler | undefined {
  const candidate: unknown = Reflect.get(implementation, rpc.handlerName);
  if (typeof candidate !== "function") return undefined;
  return (request) => Promise.resolve(candidate.call(implementation, request));
}

/**
 * Calls the handler with an already-decoded request. A missing handler is Unimplemented; anything
 * the handler throws or rejects with becomes a CsiError (errors.ts `toCsiError`).
 */
export async function dispatchRpc(implementation: object, rpc: CsiRpc, request: unknown): Promise<CallOutcome> {
  const handler = handlerOf(implementation, rpc);
  if (handler === undefined) return { error: unimplementedError(rpc) };
  try {
    return { response: await handler(request) };
  } catch (error) {
    return { error: toCsiError(error) };
  }
}
