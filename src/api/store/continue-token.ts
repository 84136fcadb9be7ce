/**
 * List chunking tokens, in Kubernetes' format: base64url of
 * `{"v":"meta.k8s.io/v1","rv":<revision>,"start":"<next key, relative to the list prefix>"}`.
 * The token pins the revision, so every page of one list reads the same snapshot.
 */
import { ApiError, badRequest } from "../errors.ts";

const tokenVersion = "meta.k8s.io/v1";

interface ContinuePosition {
  revision: number;
  /** The first key of the next page (absolute). */
  startKey: string;
}

/** `lastKey` is the last key examined; the next page starts just after it. */
export function encodeContinue(prefix: string, lastKey: string, revision: number): string {
  const start = `${lastKey.slice(prefix.length)}\u0000`;
  return Buffer.from(JSON.stringify({ v: tokenVersion, rv: revision, start })).toString("base64url");
}

function invalidToken(why: string): ApiError {
  return badRequest(`continue key is not valid: ${why}`);
}

export function decodeContinue(prefix: string, token: string): ContinuePosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch (error) {
    throw invalidToken(`it is not a token this server issued (${(error as Error).message})`);
  }
  if (parsed === null || typeof parsed !== "object") throw invalidToken("it is not a token this server issued");
  const { v, rv, start } = parsed as Record<string, unknown>;
  if (v !== tokenVersion) throw invalidToken(`the token version ${JSON.stringify(v)} is not ${tokenVersion}`);
  if (typeof rv !== "number" || !Number.isInteger(rv) || rv <= 0) throw invalidToken("the token has no valid revision");
  if (typeof start !== "string" || start.length === 0) throw invalidToken("the token has no start key");
  if (start.split("/").some((segment) => segment === "..")) throw invalidToken("the start key leaves the list prefix");
  return { revision: rv, startKey: prefix + start };
}

/** Kubernetes' 410 for a token whose revision has been compacted away. */
export function continueExpired(): ApiError {
  return new ApiError(
    "Gone",
    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
  );
}
