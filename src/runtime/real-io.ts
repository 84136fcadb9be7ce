/**
 * Whether anything outside this process's JavaScript can still call back into it: an open socket or
 * server (a gRPC channel on a unix socket, an HTTP connection), a file-system or DNS request, a
 * child process, a real timer. When nothing of the kind exists, a program is purely in-process: once
 * its promise chains have run, no further event-loop turn can bring new work.
 *
 * A VirtualClock uses this to take extra turns between tasks only where real I/O may answer. It asks
 * Node for the resources that keep the event loop alive, leaving out standard output and error: the
 * process writes to them and never reads, so no work arrives through them (and under a test runner
 * or a pipe they are sockets, which would otherwise make every run look like one with real I/O).
 */
import { Socket } from "node:net";

/** True when some socket, server, request, child process or real timer is active. */
export function realIoMayBePending(): boolean {
  const active = process.getActiveResourcesInfo().length;
  return active > 0 && active > listedStdioStreams();
}

/**
 * How many of the active resources are standard output and error: each is listed once when it is a
 * pipe or a socket (a terminal's handle does not keep the loop alive and is not listed; a file is
 * written synchronously and has no handle). Reading the streams creates them if nothing had, which
 * makes them listed from now on, so the count stays true.
 */
function listedStdioStreams(): number {
  return listedAsHandle(process.stdout) + listedAsHandle(process.stderr);
}

function listedAsHandle(stream: NodeJS.WriteStream): number {
  return stream instanceof Socket && !stream.isTTY && !stream.destroyed ? 1 : 0;
}
