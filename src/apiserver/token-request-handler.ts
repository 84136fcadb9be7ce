/**
 * `POST serviceaccounts/<name>/token` (TokenRequest, `kubectl create token`): a token for an
 * existing service account, from `auth/service-account-tokens.ts`, with the requested lifetime
 * (at least ten minutes, an hour unless asked) and audiences.
 */
import { ApiError, invalid } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import { invalid as invalidField } from "../api/validation/field-errors.ts";
import { formatRfc3339 } from "../runtime/clock.ts";
import {
  defaultTokenAudience,
  defaultTokenExpirationSeconds,
  minTokenExpirationSeconds,
} from "./auth/service-account-tokens.ts";
import { isPlainObject, readBodyObject } from "./request-body.ts";
import type { ResourceRequest } from "./request-context.ts";
import { sendJson } from "./responses.ts";

const tokenGroup = "authentication.k8s.io";

function expirationOf(spec: Record<string, unknown>, name: string): number {
  const requested = spec.expirationSeconds;
  if (requested === undefined || requested === null) return defaultTokenExpirationSeconds;
  if (typeof requested !== "number" || !Number.isInteger(requested) || requested < minTokenExpirationSeconds) {
    const cause = invalidField("spec.expirationSeconds", requested, "may not specify a duration less than 10 minutes");
    const message = invalid(`TokenRequest.${tokenGroup}`, tokenGroup, name, [cause]).message;
    throw new ApiError("Invalid", message, { name, group: tokenGroup, kind: "TokenRequest", causes: [cause] });
  }
  return requested;
}

export async function handleTokenRequest(context: ResourceRequest): Promise<void> {
  const { server, path, request, response } = context;
  if (server.tokens === undefined) {
    throw new ApiError(
      "BadRequest",
      "this API server issues no service account tokens (it runs without authentication)",
    );
  }
  const account = await server.store.get<KObject>(path.type, path.namespace, path.name);
  const body = await readBodyObject(request, {
    protobuf: true,
    expected: { apiVersion: `${tokenGroup}/v1`, kind: "TokenRequest" },
  });
  const spec = isPlainObject(body.spec) ? body.spec : {};
  const expirationSeconds = expirationOf(spec, path.name);
  const audiences =
    Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [defaultTokenAudience];
  const issued = server.tokens.issue(path.namespace, path.name, account.metadata?.uid ?? "", expirationSeconds);
  sendJson(response, 201, {
    kind: "TokenRequest",
    apiVersion: `${tokenGroup}/v1`,
    metadata: { name: path.name, namespace: path.namespace, creationTimestamp: null },
    spec: { audiences, expirationSeconds, boundObjectRef: null },
    status: { token: issued.token, expirationTimestamp: formatRfc3339(issued.expiresAtMs) },
  });
}
