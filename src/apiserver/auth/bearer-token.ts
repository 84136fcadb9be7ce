/**
 * The token of an `Authorization: Bearer <token>` header, as kubectl and client libraries send it.
 */
import { ApiError } from "../../api/errors.ts";

const bearerPattern = /^Bearer\s+(\S+)\s*$/i;

/** The token, or undefined when the header is missing or is not a bearer token. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  return bearerPattern.exec(authorization)?.[1];
}

/** kube-apiserver's answer to a request without valid credentials: a 401 Status saying only "Unauthorized". */
export function unauthorized(): ApiError {
  return new ApiError("Unauthorized", "Unauthorized");
}
