/**
 * What `kvol up` and `kvol server` check before they write anything: the data directory can be
 * one (not a file, writable), and the address and port can be listened on. Each failure names the
 * flag to change, so a bad start leaves the data directory as it was.
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";

class PreflightError extends Error {}

/** The directory, or the nearest existing folder above it, must be writable; a file is refused. */
export function checkDataDir(path: string): void {
  const full = resolve(path);
  let existing = full;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (existing === full && !statSync(full).isDirectory()) {
    throw new PreflightError(`--data-dir ${path} is a file, not a directory; choose a directory`);
  }
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new PreflightError(`--data-dir ${path} cannot be written (${why} on ${existing}); choose another directory`);
  }
}

/** Listens on `host:port` for a moment and closes; port 0 (any free port) checks the address only. */
export function checkListenAddress(host: string, port: number): Promise<void> {
  return new Promise((resolveCheck, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolveCheck()));
  });
}

function listenError(error: NodeJS.ErrnoException, host: string, port: number): PreflightError {
  switch (error.code) {
    case "EADDRINUSE":
      return new PreflightError(`port ${port} is already in use; choose another with --port (0 picks a free one)`);
    case "EACCES":
      return new PreflightError(
        `port ${port} needs privileges this user does not have; choose one above 1023 with --port`,
      );
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return new PreflightError(
        `--address ${host} is not an address of this machine; use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`,
      );
    default:
      return new PreflightError(`cannot listen on ${host}:${port} (${error.message}); check --address and --port`);
  }
}
