/** The text Go's `%v` prints for an error value, which the sidecars' messages embed. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
