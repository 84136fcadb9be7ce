/**
 * The caller's side shared by both client transports: a CsiClient object whose methods all go
 * through one `deliver` function, with the request decoded as the receiver will see it and every
 * finished call reported to the call-log hook.
 */
import { type CallOutcome, type CsiCallHook, callRecordOf, redactSecrets, requestSnapshot } from "./call-log.ts";
import { CsiError, toCsiError } from "./errors.ts";
import { allCsiRpcs, type CsiRpc, requestAsReceived } from "./rpcs.ts";
import type { CsiClient } from "./services.ts";

/** Carries one decoded request to the driver and resolves with its decoded response. */
export type RpcDelivery = (rpc: CsiRpc, receivedRequest: unknown) => Promise<unknown>;

/**
 * Runs one call. The request is encoded and decoded first, so the driver and the log see the
 * same normalised message; failures of any kind reach the caller as CsiError. A request that
 * cannot be encoded is logged as given (redacted), since there is no decoded form.
 */
async function recordedCall(
  rpc: CsiRpc,
  request: unknown,
  deliver: RpcDelivery,
  onCall: CsiCallHook | undefined,
): Promise<unknown> {
  let snapshot: unknown;
  let outcome: CallOutcome;
  try {
    const received = requestAsReceived(rpc, request);
    if (onCall !== undefined) snapshot = requestSnapshot(received);
    outcome = { response: await deliver(rpc, received) };
  } catch (error) {
    outcome = { error: toCsiError(error) };
  }
  onCall?.(callRecordOf(rpc, snapshot ?? redactSecrets(request), outcome));
  if ("error" in outcome) throw outcome.error;
  return outcome.response;
}

/** The status a Go client returns for calls on a closed connection. */
const clientClosingStatusMessage = "grpc: the client connection is closing";

/**
 * A CsiClient whose every method is `deliver` for its RPC. After `close()` calls fail with
 * Canceled, without reaching the driver, on either transport.
 */
export function assembleCsiClient(
  deliver: RpcDelivery,
  onCall: CsiCallHook | undefined,
  releaseConnection: () => void,
): CsiClient {
  let closed = false;
  const deliverUnlessClosed: RpcDelivery = (rpc, request) =>
    closed ? Promise.reject(new CsiError("Canceled", clientClosingStatusMessage)) : deliver(rpc, request);
  const methods = Object.fromEntries(
    allCsiRpcs().map((rpc) => [
      rpc.handlerName,
      (request: unknown) => recordedCall(rpc, request, deliverUnlessClosed, onCall),
    ]),
  );
  const close = (): void => {
    if (closed) return;
    closed = true;
    releaseConnection();
  };
  // The RPC table is built from the CsiClient interfaces (services.ts), one method per RPC, each
  // resolving with its RPC's decoded response type.
  return { ...methods, close } as unknown as CsiClient;
}
