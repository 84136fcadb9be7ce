/**
 * Whether anything outside this process's JavaScript can still call back into it: an open socket or
 * server (a gRPC channel on a unix socket, an HTTP connection), a file-system or DNS request, a
 * child process, a real timer. When nothing of the kind exists, a program is purely in-process: once
 * its promise chains have run, no further event-loop turn can bring new work.
 *
 * A VirtualClock uses this to take extra turns between tasks only where real I/O may answer. It asks
 * Node for the resources that keep the event loop alive, leaving out standard output and error: the
 * process writes to them and never reads, so no work arrives through them (and under a test runner,
 * a pipe or a terminal they are listed, which would otherwise make every run look like one with real
 * I/O).
 *
 * What Node does not list is not seen: unref'd handles and thread-pool jobs (async zlib and crypto,
 * none of which the simulator uses), and a gRPC channel while it connects with no call yet made
 * (grpc-js unrefs its session then). The simulator's own gRPC servers listen in the same process, and
 * a listening server is listed, so its calls still get their turns.
 */
import { Socket } from "node:net";

/** True when some socket, server, request, child process or real timer is active. */
export function realIoMayBePending(): boolean {
  const active = process.getActiveResourcesInfo();
  if (active.length === 0) return false;
  let terminals = stdioStreamsOfKind(true);
  let pipes = stdioStreamsOfKind(false);
  for (const resource of active) {
    if (resource === "TTYWrap" && terminals > 0) terminals--;
    else if (resource === "PipeWrap" && pipes > 0) pipes--;
    else return true;
  }
  return false;
}

/**
 * How many of standard output and error are open terminals (or pipes and sockets): each such stream
 * is listed once, as a TTYWrap (or a PipeWrap); a file is written synchronously and has no handle.
 * Reading the streams creates them if nothing had, which makes them listed from now on, so the
 * count stays true.
 */
function stdioStreamsOfKind(terminal: boolean): number {
  return isOpenStreamOfKind(process.stdout, terminal) + isOpenStreamOfKind(process.stderr, terminal);
}

function isOpenStreamOfKind(stream: NodeJS.WriteStream, terminal: boolean): number {
  return stream instanceof Socket && Boolean(stream.isTTY) === terminal && !stream.destroyed ? 1 : 0;
}
