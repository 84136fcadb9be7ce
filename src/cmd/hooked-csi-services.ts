/**
 * A bundled driver's three services with `kvol fault csi-call-error` and its kin in front: each call
 * first runs the hook set for its RPC (a delay on the cluster's clock, then an error, or nothing),
 * then reaches the driver. mock.csi.kvol.io runs its hooks itself and is served as it is.
 */
import type { CsiCallHooks, CsiRpcMethod } from "../csi/drivers/common/call-hooks.ts";
import { dispatchRpc, implementationOf } from "../csi/grpc/dispatch.ts";
import { csiRpcsOf } from "../csi/grpc/rpcs.ts";
import type { CsiImplementations } from "../csi/grpc/services.ts";
import type { CsiServiceName } from "../csi/proto/load.ts";

export function hookedCsiServices(driver: CsiImplementations, hooks: CsiCallHooks): CsiImplementations {
  const hooked = (service: CsiServiceName): object => {
    const implementation = implementationOf(driver, service) ?? {};
    return Object.fromEntries(
      csiRpcsOf(service).map((rpc) => [
        rpc.handlerName,
        async (request: unknown) => {
          // The table's method names are the RPCs' gRPC names, which CsiRpcMethod lists.
          await hooks.apply(rpc.method as CsiRpcMethod, request);
          const outcome = await dispatchRpc(implementation, rpc, request);
          if ("error" in outcome) throw outcome.error;
          return outcome.response;
        },
      ]),
    );
  };
  // One method per RPC of each service, built from the RPC table: what the service interfaces list.
  return {
    identity: hooked("Identity"),
    controller: hooked("Controller"),
    node: hooked("Node"),
  } as unknown as CsiImplementations;
}
