/**
 * The RPC table both transports are built from: for every RPC in services.ts, its gRPC path, the
 * handler method name and the protobuf codecs from csi.proto.
 */
import type { MethodDefinition } from "@grpc/proto-loader";
import { errorMessage } from "../../runtime/error-message.ts";
import { type CsiServiceName, csiMethodDefinition } from "../proto/load.ts";
import { CsiError } from "./errors.ts";
import { csiRpcNames, csiServiceNames } from "./services.ts";

export interface CsiRpc {
  service: CsiServiceName;
  /** The gRPC method name, e.g. `NodeStageVolume`. */
  method: string;
  /** The interface method implementing it, e.g. `nodeStageVolume`. */
  handlerName: string;
  /** `/csi.v1.Node/NodeStageVolume`. */
  path: string;
  definition: MethodDefinition<unknown, unknown>;
}

function handlerNameOf(method: string): string {
  return method.charAt(0).toLowerCase() + method.slice(1);
}

function buildRpc(service: CsiServiceName, method: string): CsiRpc {
  const definition = csiMethodDefinition<unknown, unknown>(service, method);
  if (definition.requestStream || definition.responseStream) {
    throw new Error(`${definition.path} streams; kvol's CSI transports carry unary RPCs only`);
  }
  return { service, method, handlerName: handlerNameOf(method), path: definition.path, definition };
}

let rpcTable: ReadonlyMap<CsiServiceName, readonly CsiRpc[]> | undefined;

/** The RPCs of one service, in csi.proto order. */
export function csiRpcsOf(service: CsiServiceName): readonly CsiRpc[] {
  rpcTable ??= new Map(
    csiServiceNames.map((name) => [name, csiRpcNames[name].map((method) => buildRpc(name, method))] as const),
  );
  return rpcTable.get(service) ?? [];
}

/** Every RPC of every service kvol speaks. */
export function allCsiRpcs(): readonly CsiRpc[] {
  return csiServiceNames.flatMap((service) => csiRpcsOf(service));
}

/**
 * Encodes and decodes a request exactly as a socket would: the result is what the receiving side
 * sees (defaults filled, unknown properties dropped, a fresh object the sender cannot mutate).
 * Failing to encode is Internal, with the wording grpc-js uses for the same failure.
 */
export function requestAsReceived(rpc: CsiRpc, request: unknown): unknown {
  try {
    return rpc.definition.requestDeserialize(rpc.definition.requestSerialize(request));
  } catch (error) {
    throw new CsiError("Internal", `Request message serialization failure: ${errorMessage(error)}`);
  }
}

/** The response counterpart of `requestAsReceived`. */
export function responseAsReceived(rpc: CsiRpc, response: unknown): unknown {
  try {
    return rpc.definition.responseDeserialize(rpc.definition.responseSerialize(response));
  } catch (error) {
    throw new CsiError("Internal", `Response message serialization failure: ${errorMessage(error)}`);
  }
}
