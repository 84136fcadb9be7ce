/**
 * One operation at a time per volume (or per name, per target path). CSI lets a plugin refuse a
 * second concurrent call for the same volume with ABORTED; the caller retries with backoff, and by
 * then the first call has finished, so no two calls ever race on one mount or one catalog record.
 */
import { CsiError } from "../../grpc/errors.ts";

export class OperationLocks {
  private readonly held = new Set<string>();

  /** Runs `operation` holding `key`; Aborted at once when another operation holds it. */
  async run<T>(key: string, operation: () => Promise<T>): Promise<T> {
    if (this.held.has(key)) {
      throw new CsiError("Aborted", `an operation on ${key} is already in progress; retry once it has finished`);
    }
    this.held.add(key);
    try {
      return await operation();
    } finally {
      this.held.delete(key);
    }
  }

  /** Keys held now (for tests and diagnostics). */
  heldKeys(): string[] {
    return [...this.held];
  }
}
