/** strerror(3) as C programs print it (capitalised), for commands that report a failed system call with %m. */
import { ERRNO_TEXT, type Errno, HostError } from "../../host.ts";

export function strerror(code: Errno): string {
  const text = ERRNO_TEXT[code];
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** The errno of a HostError, or rethrows anything else (a bug, not a simulated failure). */
export function errnoOf(error: unknown): Errno {
  if (error instanceof HostError) return error.code;
  throw error;
}
