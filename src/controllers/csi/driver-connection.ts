/**
 * How a sidecar talks to its driver: the controller-side CSI services (whether over a socket or
 * in-process is the caller's choice), each call bounded by the sidecar's `--timeout`. The deadline
 * is enforced here on the sidecar's Clock, so it holds on virtual time and for transports that
 * have none of their own; an expired call fails as a Go client's does ("context deadline
 * exceeded"), and the driver's late answer is dropped.
 */
import { clientDeadlineExceeded } from "../../csi/grpc/errors.ts";
import type { CsiController, CsiIdentity } from "../../csi/grpc/services.ts";
import type { Clock } from "../../runtime/clock.ts";

/** What both sidecars need of a driver: Identity (probe, name, capabilities) and Controller. */
export type CsiControllerClient = CsiIdentity & CsiController;

/** Runs `call`, failing with DeadlineExceeded when it has not answered within `timeoutMs`. */
export function callWithTimeout<T>(clock: Clock, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  if (!(timeoutMs > 0)) throw new RangeError(`CSI call timeout must be > 0 ms, got ${timeoutMs}`);
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = clock.setTimer(timeoutMs, () => {
      if (settled) return;
      settled = true;
      reject(clientDeadlineExceeded());
    });
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      settle();
    };
    call().then(
      (response) => finish(() => resolve(response)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
