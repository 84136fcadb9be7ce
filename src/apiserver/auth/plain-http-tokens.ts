/**
 * Bearer tokens travel only where no one else can read them: over TLS, or over plain HTTP from
 * this machine (the loopback address, where kube-apiserver's old insecure port was bound too).
 * A token sent over plain HTTP from another machine is refused with a 401 that says how to
 * connect instead, unless the server was started with `--insecure-http-tokens`, the operator's
 * explicit choice of a plain-HTTP API on the network.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { ApiError } from "../../api/errors.ts";

function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const bare = address.replace(/^::ffff:/, "");
  return bare === "::1" || bare.startsWith("127.");
}

/** Throws a 401 when the request carries credentials over plain HTTP from another machine. */
export function checkTokenTransport(request: IncomingMessage, insecureHttpTokens: boolean): void {
  if (insecureHttpTokens || request.headers.authorization === undefined) return;
  if ((request.socket as Partial<TLSSocket>).encrypted === true || isLoopback(request.socket.remoteAddress)) return;
  throw new ApiError(
    "Unauthorized",
    "bearer tokens are not accepted over plain HTTP from another machine: connect with https:// on the same port (the kubeconfig's server and certificate authority), or start the server with --insecure-http-tokens",
  );
}
