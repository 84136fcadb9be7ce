/**
 * API errors in the shape of Kubernetes' metav1.Status, with the same reasons, codes and message
 * wording, so the API server can return them as they are and callers can branch on `reason`.
 */

export type StatusReason =
  | "BadRequest"
  | "Unauthorized"
  | "Forbidden"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Gone"
  | "Invalid"
  | "RequestEntityTooLarge"
  | "UnsupportedMediaType"
  | "MethodNotAllowed"
  | "NotAcceptable"
  | "InternalError"
  | "ServiceUnavailable"
  | "Timeout";

const CODE_FOR_REASON: Record<StatusReason, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
};

/** One field-level problem, as in `details.causes` (`type` is Kubernetes' FieldValueRequired etc.). */
export interface FieldCause {
  field: string;
  reason: string;
  message: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: FieldCause[];
}

/** Ordinary answers, not faults: they carry no stack trace. */
const answersWithoutStack: ReadonlySet<StatusReason> = new Set<StatusReason>(["NotFound", "AlreadyExists", "Conflict"]);

export class ApiError extends Error {
  readonly reason: StatusReason;
  readonly code: number;
  readonly details: StatusDetails;

  constructor(reason: StatusReason, message: string, details: StatusDetails = {}) {
    // Controllers meet these answers on every race and existence check; a stack trace each cost more than the answer.
    const stackTraceLimit = Error.stackTraceLimit;
    if (answersWithoutStack.has(reason)) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "ApiError";
    this.reason = reason;
    this.code = CODE_FOR_REASON[reason];
    this.details = details;
  }

  /** The metav1.Status object the API server returns for this error. */
  toStatus(): Record<string, unknown> {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      details: this.details,
      code: this.code,
    };
  }
}

/** `pods`, or `storageclasses.storage.k8s.io` for a named group, as Kubernetes prints a resource. */
export function qualifiedResource(plural: string, group: string): string {
  return group === "" ? plural : `${plural}.${group}`;
}

export function notFound(plural: string, group: string, name: string): ApiError {
  return new ApiError("NotFound", `${qualifiedResource(plural, group)} "${name}" not found`, {
    name,
    group,
    kind: plural,
  });
}

export function alreadyExists(plural: string, group: string, name: string): ApiError {
  return new ApiError("AlreadyExists", `${qualifiedResource(plural, group)} "${name}" already exists`, {
    name,
    group,
    kind: plural,
  });
}

export function conflict(plural: string, group: string, name: string, why: string): ApiError {
  return new ApiError(
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(plural, group)} "${name}": ${why}`,
    { name, group, kind: plural },
  );
}

export const STALE_OBJECT_MESSAGE =
  "the object has been modified; please apply your changes to the latest version and try again";

export function gone(requested: number, oldest: number): ApiError {
  return new ApiError("Gone", `too old resource version: ${requested} (${oldest})`);
}

/** `Kind "name" is invalid: [a: Required value, b: Invalid value: ...]` as Kubernetes words it. */
export function invalid(kind: string, group: string, name: string, causes: FieldCause[]): ApiError {
  // The name comes from the body, so it may not be a string at all; a Status's details.name is one.
  const shownName = typeof name === "string" ? name : "";
  const listed = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`;
  return new ApiError("Invalid", `${kind} "${shownName}" is invalid: ${summary}`, {
    name: shownName,
    group,
    kind,
    causes,
  });
}

export function badRequest(message: string): ApiError {
  return new ApiError("BadRequest", message);
}

export function isApiError(err: unknown, reason?: StatusReason): err is ApiError {
  return err instanceof ApiError && (reason === undefined || err.reason === reason);
}

export const isNotFound = (err: unknown): boolean => isApiError(err, "NotFound");
export const isConflict = (err: unknown): boolean => isApiError(err, "Conflict");
export const isAlreadyExists = (err: unknown): boolean => isApiError(err, "AlreadyExists");
export const isGone = (err: unknown): boolean => isApiError(err, "Gone");
