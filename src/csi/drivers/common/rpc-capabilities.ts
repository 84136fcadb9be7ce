/**
 * The answer to ControllerGetCapabilities and NodeGetCapabilities: each RPC type the service
 * supports, wrapped in the `rpc` arm of its capability oneof.
 */

interface RpcCapabilities<Type> {
  capabilities: { rpc: { type: Type } }[];
}

export function rpcCapabilities<Type extends string>(types: readonly Type[]): RpcCapabilities<Type> {
  return { capabilities: types.map((type) => ({ rpc: { type } })) };
}
