/**
 * Bearer tokens travel only where no one else can read them: over TLS. A token sent over plain
 * HTTP — from another machine or from this one — is refused with a 401 that says how to connect
 * instead, unless the server was started with `--insecure-http-tokens`, the operator's explicit
 * choice of a plain-HTTP API (kube-apiserver's old insecure port, which it no longer has). Requests
 * without credentials are left to authentication: the public paths answer, others get a 401.
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { ApiError } from "../../api/errors.ts";

/** Throws a 401 when the request carries credentials over plain HTTP. */
export function checkTokenTransport(request: IncomingMessage, insecureHttpTokens: boolean): void {
  if (insecureHttpTokens || request.headers.authorization === undefined) return;
  if ((request.socket as Partial<TLSSocket>).encrypted === true) return;
  throw new ApiError(
    "Unauthorized",
    "bearer tokens are not accepted over plain HTTP: connect with https:// on the same port, trusting the server's certificate authority (the kubeconfig's server and certificate-authority-data, or --server https://… --certificate-authority DATA/ca.crt), or start the server with --insecure-http-tokens",
  );
}
