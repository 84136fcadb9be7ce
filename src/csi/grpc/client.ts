/**
 * Calls a CSI driver over its Unix socket with @grpc/grpc-js, the way kubelet and the
 * kubernetes-csi sidecars do: plaintext, one connection, a deadline on every call. A gRPC status
 * arrives as a CsiError with the same code and message.
 */
import { Client, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { DEFAULT_TIMERS } from "../../api/timers.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { CsiCallHook } from "./call-log.ts";
import { socketPathOf } from "./endpoint.ts";
import { type CsiError, clientDeadlineExceeded, csiErrorFromStatus, grpcStatusCodeByName } from "./errors.ts";
import type { CsiRpc } from "./rpcs.ts";
import type { CsiClient } from "./services.ts";
import { assembleCsiClient, type RpcDelivery } from "./typed-client.ts";

/** Kubelet's `csiTimeout` (pkg/volume/csi/csi_plugin.go): the deadline of each of its CSI calls. */
const kubeletCsiTimeoutMs = DEFAULT_TIMERS.csiTimeoutMs;

/**
 * How grpc-js words the expiry of a deadline it enforced itself: `Deadline exceeded after 0.1s, …`
 * from its deadline timer, or a bare `Deadline exceeded` when the deadline passed before the call
 * got going (both happen, depending on timing).
 */
const grpcJsLocalDeadlinePrefix = "Deadline exceeded after";
const grpcJsLocalDeadlineBare = "Deadline exceeded";

interface CsiSocketClientOptions {
  /** `unix:///abs/path/csi.sock`. */
  endpoint: string;
  /**
   * Source of the per-call deadline. grpc-js measures deadlines against wall time, so this must be
   * a wall clock (RealClock): the socket transport never runs under virtual time.
   */
  clock: Clock;
  /** Deadline of each call, counted from its start; defaults to kubelet's 2 minutes. */
  callTimeoutMs?: number;
  /** Sees every finished call. */
  onCall?: CsiCallHook;
}

/** Opens a lazy connection: the first call dials the socket. */
export function connectCsiSocket(options: CsiSocketClientOptions): CsiClient {
  socketPathOf(options.endpoint);
  const callTimeoutMs = options.callTimeoutMs ?? kubeletCsiTimeoutMs;
  if (!Number.isFinite(callTimeoutMs) || callTimeoutMs <= 0) {
    throw new RangeError(`callTimeoutMs must be a finite number > 0, got ${callTimeoutMs}`);
  }
  const channel = new Client(options.endpoint, credentials.createInsecure());
  const deliver: RpcDelivery = (rpc, request) => callUnary(channel, rpc, request, options.clock.now() + callTimeoutMs);
  return assembleCsiClient(deliver, options.onCall, () => channel.close());
}

/** One unary call; `deadlineEpochMs` is handed to grpc-js, which enforces it on its own timer. */
function callUnary(channel: Client, rpc: CsiRpc, request: unknown, deadlineEpochMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    channel.makeUnaryRequest(
      rpc.path,
      rpc.definition.requestSerialize,
      rpc.definition.responseDeserialize,
      request,
      new Metadata(),
      { deadline: deadlineEpochMs },
      (error: ServiceError | null, response?: unknown) => {
        if (error === null) resolve(response);
        else reject(csiErrorOfStatus(error));
      },
    );
  });
}

/**
 * The CsiError for a failed call. A deadline grpc-js enforced itself reads as a Go client's
 * ("context deadline exceeded"), because kvol reproduces kubelet's messages; a DeadlineExceeded
 * status the driver sent keeps the driver's message.
 */
function csiErrorOfStatus(error: ServiceError): CsiError {
  const expiredHere =
    error.code === grpcStatusCodeByName.DeadlineExceeded &&
    (error.details === grpcJsLocalDeadlineBare || error.details.startsWith(grpcJsLocalDeadlinePrefix));
  return expiredHere ? clientDeadlineExceeded() : csiErrorFromStatus(error.code, error.details);
}
