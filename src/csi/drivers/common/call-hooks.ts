/**
 * Faults a test, a scenario or `kvol fault` injects into a bundled CSI driver, per RPC
 * (mock.csi.kvol.io checks its own; the cluster puts the others behind them, `cluster-csi-drivers.ts`):
 *
 *   driver.hooks.set("NodeStageVolume", { code: "DeadlineExceeded", times: 1 });  // next call fails once
 *   driver.hooks.set("ControllerPublishVolume", { delayMs: 180_000 });           // every call takes 3 min
 *   driver.hooks.set("NodePublishVolume", { code: "Internal", volumeId: "mock-pvc-1" });
 *
 * A hook delays the call on the driver's Clock (virtual time in the simulator), then fails it with
 * its code, or lets the real handler answer when it has no code. `times` bounds how many calls it
 * affects; without it the hook stays until cleared.
 */
import type { Clock } from "../../../runtime/clock.ts";
import { CsiError, type CsiStatusName } from "../../grpc/errors.ts";
import type { CsiRpcName } from "../../grpc/services.ts";

/** Any RPC of the three services, by its gRPC method name. */
export type CsiRpcMethod = CsiRpcName<"Identity"> | CsiRpcName<"Controller"> | CsiRpcName<"Node">;

export interface CsiCallFault {
  /** Fail the call with this gRPC status (after the delay, if any). */
  code?: CsiStatusName;
  /** The status message; a default names the hook. */
  message?: string;
  /** Wait this long on the driver's clock before failing or answering. */
  delayMs?: number;
  /** Affect this many calls, then remove the hook; unlimited when absent. */
  times?: number;
  /** Affect only calls whose request names this volume id. */
  volumeId?: string;
}

interface ActiveFault extends CsiCallFault {
  remaining: number;
}

export class CsiCallHooks {
  private readonly faults = new Map<CsiRpcMethod, ActiveFault>();

  constructor(private readonly clock: Clock) {}

  /** Installs (or replaces) the fault of one RPC. */
  set(method: CsiRpcMethod, fault: CsiCallFault): void {
    checkFault(method, fault);
    this.faults.set(method, { ...fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  /** Removes the fault of one RPC, or every fault. */
  clear(method?: CsiRpcMethod): void {
    if (method === undefined) this.faults.clear();
    else this.faults.delete(method);
  }

  /** The faults in place now, with how many calls each will still affect. */
  active(): Array<{ method: CsiRpcMethod; fault: CsiCallFault; remaining: number }> {
    return [...this.faults].map(([method, { remaining, ...fault }]) => ({ method, fault, remaining }));
  }

  /** Runs the fault for this call, if one applies: the delay, then the error. */
  async apply(method: CsiRpcMethod, request: unknown): Promise<void> {
    const fault = this.faults.get(method);
    if (fault === undefined || !appliesTo(fault, request)) return;
    fault.remaining--;
    if (fault.remaining <= 0) this.faults.delete(method);
    if (fault.delayMs !== undefined && fault.delayMs > 0) await this.clock.sleep(fault.delayMs);
    if (fault.code !== undefined) {
      throw new CsiError(fault.code, fault.message ?? `${method} failed: injected ${fault.code} fault`);
    }
  }
}

function appliesTo(fault: CsiCallFault, request: unknown): boolean {
  if (fault.volumeId === undefined) return true;
  return typeof request === "object" && request !== null && Reflect.get(request, "volumeId") === fault.volumeId;
}

function checkFault(method: CsiRpcMethod, fault: CsiCallFault): void {
  if (fault.code === undefined && fault.delayMs === undefined) {
    throw new RangeError(`hooks.set(${method}): a fault needs a code, a delayMs, or both`);
  }
  if (fault.delayMs !== undefined && !(Number.isFinite(fault.delayMs) && fault.delayMs >= 0)) {
    throw new RangeError(`hooks.set(${method}): delayMs must be a finite number >= 0, got ${fault.delayMs}`);
  }
  if (fault.times !== undefined && !(Number.isSafeInteger(fault.times) && fault.times > 0)) {
    throw new RangeError(`hooks.set(${method}): times must be a whole number > 0, got ${fault.times}`);
  }
}
