/**
 * The CSI interfaces called directly, for the simulator: no socket, no threads, no wall clock,
 * yet the same behaviour a caller sees over a socket. Every request and response is encoded and
 * decoded with csi.proto (so the driver gets exactly what it would get from a real kubelet and
 * cannot share objects with the caller), failures map to CsiError the same way, and the call-log
 * hook receives the same records.
 */
import type { Clock } from "../../runtime/clock.ts";
import type { CsiCallHook } from "./call-log.ts";
import { dispatchRpc, implementationOf, unimplementedError } from "./dispatch.ts";
import { clientDeadlineExceeded } from "./errors.ts";
import { type CsiRpc, responseAsReceived } from "./rpcs.ts";
import type { CsiClient, CsiImplementations } from "./services.ts";
import { assembleCsiClient, type RpcDelivery } from "./typed-client.ts";

interface InProcessDeadline {
  /** The clock the deadline runs on (a VirtualClock in the simulator). */
  clock: Clock;
  /** Deadline of each call, counted from its start. */
  callTimeoutMs: number;
}

interface InProcessCsiOptions extends CsiImplementations {
  onCall?: CsiCallHook;
  /**
   * When set, a call the driver has not answered in time fails with DeadlineExceeded, as over a
   * socket; the handler keeps running and its late answer is dropped. Without it calls wait as
   * long as the handler takes.
   */
  deadline?: InProcessDeadline;
}

/** A CsiClient that runs the given implementations in this process. */
export function connectCsiInProcess(options: InProcessCsiOptions): CsiClient {
  const { deadline } = options;
  if (deadline !== undefined && (!Number.isFinite(deadline.callTimeoutMs) || deadline.callTimeoutMs <= 0)) {
    throw new RangeError(`deadline.callTimeoutMs must be a finite number > 0, got ${deadline.callTimeoutMs}`);
  }
  const deliver: RpcDelivery = (rpc, request) => {
    const answer = answerDirectly(options, rpc, request);
    return deadline === undefined ? answer : withinDeadline(answer, deadline);
  };
  return assembleCsiClient(deliver, options.onCall, () => undefined);
}

async function answerDirectly(implementations: CsiImplementations, rpc: CsiRpc, request: unknown): Promise<unknown> {
  const implementation = implementationOf(implementations, rpc.service);
  if (implementation === undefined) throw unimplementedError(rpc);
  const outcome = await dispatchRpc(implementation, rpc, request);
  if ("error" in outcome) throw outcome.error;
  return responseAsReceived(rpc, outcome.response);
}

function withinDeadline(answer: Promise<unknown>, deadline: InProcessDeadline): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = deadline.clock.setTimer(deadline.callTimeoutMs, () => reject(clientDeadlineExceeded()));
    answer.then(
      (response) => {
        timer.cancel();
        resolve(response);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}
