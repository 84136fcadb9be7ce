/**
 * A watch handler that throws is a bug in the watcher. Its error is rethrown outside the delivery
 * loop (an uncaught exception, loud in tests and logs) so it neither stops delivery to the other
 * watches nor the rest of the batch.
 */
export function reportHandlerError(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
