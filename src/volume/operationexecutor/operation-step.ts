/**
 * Runs one step of an operation and words its failure as Kubernetes does: `<prefix> failed for
 * volume "<name>" : <err>`. A step that already produced a VolumeOperationError keeps it.
 */
import { type VolumeMessageSubject, VolumeOperationError } from "./volume-messages.ts";

export async function step<T>(prefix: string, subject: VolumeMessageSubject, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof VolumeOperationError ? err : new VolumeOperationError(prefix, subject, err);
  }
}
