/**
 * Node's fs errors → HostErrors, so callers (IsCorruptedMnt, cleanup) see the same errnos as on
 * the simulated node. Errnos outside the Host's list (EROFS, EMFILE, ...) are passed on unchanged:
 * naming them as something else would mislead the corrupted-mount checks.
 */
import { ERRNO_TEXT, type Errno, HostError } from "../host.ts";

/** Linux reports EWOULDBLOCK as EAGAIN (the same number). */
const errnoAliases: Readonly<Record<string, Errno>> = { EAGAIN: "EWOULDBLOCK" };

function isErrno(code: string): code is Errno {
  return Object.hasOwn(ERRNO_TEXT, code);
}

/** The Host errno for a Node error code, or undefined when the Host has no name for it. */
export function hostErrnoOf(code: unknown): Errno | undefined {
  if (typeof code !== "string") return undefined;
  if (isErrno(code)) return code;
  return errnoAliases[code];
}

/** Rethrows a failed Node fs call as a HostError (`stat /path: transport endpoint is not connected`). */
export function toHostError(error: unknown, syscall: string, path: string): unknown {
  if (!(error instanceof Error)) return error;
  const errno = hostErrnoOf((error as NodeJS.ErrnoException).code);
  return errno === undefined ? error : new HostError(errno, syscall, path);
}

/** Runs one fs call and reports its failure as a HostError naming `syscall` and `path`. */
export async function withHostErrors<T>(syscall: string, path: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toHostError(error, syscall, path);
  }
}
