/** What Go's `%v` prints for an error: its message, or the thrown value as text when it is not an Error. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
