/**
 * The call-log hook: every transport reports each finished CSI call as one record, in the form the
 * receiving side decoded it, so the same calls give the same log over a socket and in-process.
 * Records are copies: neither the driver nor the caller can change them afterwards.
 * Secrets are redacted before the hook sees them: the spec forbids logging them.
 */
import type { CsiServiceName } from "../proto/load.ts";
import type { CsiError, CsiStatusName } from "./errors.ts";
import type { CsiRpc } from "./rpcs.ts";
import type { CsiHandlerName, CsiServiceInterfaces } from "./services.ts";

/** A failed call's status as plain data (timelines serialise it). */
export interface CsiErrorRecord {
  code: CsiStatusName;
  /** The status message sent on the wire. */
  message: string;
}

type RecordsOfService<S extends CsiServiceName> = {
  [H in CsiHandlerName<S>]: CsiServiceInterfaces[S][H] extends (request: infer Req) => Promise<infer Res>
    ? { service: S; method: Capitalize<H>; request: Req } & (
        | { response: Res; error?: undefined }
        | { error: CsiErrorRecord; response?: undefined }
      )
    : never;
}[CsiHandlerName<S>];

/** One finished call; narrowing on `method` gives the exact request and response types. */
export type CsiCallRecord = RecordsOfService<"Identity"> | RecordsOfService<"Controller"> | RecordsOfService<"Node">;

/** Receives every finished call. It must not throw: the call has already completed. */
export type CsiCallHook = (record: CsiCallRecord) => void;

/** What replaces each secret value (the marker kubernetes-csi's protosanitizer prints). */
export const redactedSecretValue = "***stripped***";

/**
 * A copy of a decoded request with every value of its `secrets` map replaced. In CSI v1 every
 * field tagged `csi_secret` is a request's top-level `secrets` map, so that field is the one to hide.
 */
export function redactSecrets(request: unknown): unknown {
  if (typeof request !== "object" || request === null || !("secrets" in request)) return request;
  const secrets = request.secrets;
  if (typeof secrets !== "object" || secrets === null) return request;
  const redacted = Object.fromEntries(Object.keys(secrets).map((key) => [key, redactedSecretValue]));
  return { ...request, secrets: redacted };
}

export type CallOutcome = { response: unknown } | { error: CsiError };

/**
 * The request as it goes into the log: redacted and deep-copied. Take it before the handler runs,
 * so a handler that mutates its request cannot change what was sent.
 */
export function requestSnapshot(receivedRequest: unknown): unknown {
  return structuredClone(redactSecrets(receivedRequest));
}

/**
 * Builds the record for a call from a `requestSnapshot` and the outcome. The response is copied,
 * so a caller changing its result later does not rewrite the log.
 */
export function callRecordOf(rpc: CsiRpc, snapshot: unknown, outcome: CallOutcome): CsiCallRecord {
  const base = { service: rpc.service, method: rpc.method, request: snapshot };
  const record =
    "error" in outcome
      ? { ...base, error: { code: outcome.error.code, message: outcome.error.statusMessage } }
      : { ...base, response: structuredClone(outcome.response) };
  // The RPC table pairs each method with its own message types, which is what the union spells out.
  return record as CsiCallRecord;
}
