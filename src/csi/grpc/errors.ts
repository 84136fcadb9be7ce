/**
 * CSI errors: a gRPC status (code + message) as a thrown value, the same on every transport.
 * A driver throws `new CsiError("NotFound", "volume vol-1 does not exist")`; the caller receives a
 * CsiError with that code and message, whether the call crossed a socket or not.
 */

/** gRPC status codes by their Go names (`codes.NotFound`), which also appear in Kubernetes messages. */
export const grpcStatusCodeByName = {
  OK: 0,
  Canceled: 1,
  Unknown: 2,
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  OutOfRange: 11,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  DataLoss: 15,
  Unauthenticated: 16,
} as const;

/** Every non-OK status: an error always carries one of these. */
export type CsiStatusName = Exclude<keyof typeof grpcStatusCodeByName, "OK">;

const statusNameByCode: ReadonlyMap<number, CsiStatusName> = new Map(
  (Object.keys(grpcStatusCodeByName) as (keyof typeof grpcStatusCodeByName)[])
    .filter((name): name is CsiStatusName => name !== "OK")
    .map((name) => [grpcStatusCodeByName[name], name]),
);

/**
 * Codes after which the operation may still be running on the driver (kubelet's csi_client.go
 * `isFinalError`): the mount is then marked uncertain and retried or cleaned up later.
 */
const nonFinalStatusNames: ReadonlySet<CsiStatusName> = new Set<CsiStatusName>([
  "Canceled",
  "DeadlineExceeded",
  "Unavailable",
  "ResourceExhausted",
  "Aborted",
]);

export class CsiError extends Error {
  override readonly name = "CsiError";
  /** The human-readable status message, as sent on the wire. */
  readonly statusMessage: string;

  /**
   * `message` is formatted as Go's status errors print (`rpc error: code = NotFound desc = …`),
   * so kubelet-style event and log messages that embed it read as in a real cluster.
   */
  constructor(
    readonly code: CsiStatusName,
    statusMessage: string,
  ) {
    super(`rpc error: code = ${code} desc = ${statusMessage}`);
    this.statusMessage = statusMessage;
  }

  get grpcCode(): number {
    return grpcStatusCodeByName[this.code];
  }
}

/** What Go's gRPC client reports when its own deadline passes; kubelet's messages quote this text. */
const clientDeadlineStatusMessage = "context deadline exceeded";

/** The error a caller sees when its deadline passes before the driver answered. */
export function clientDeadlineExceeded(): CsiError {
  return new CsiError("DeadlineExceeded", clientDeadlineStatusMessage);
}

/** The status for a numeric gRPC code; a code outside 1..16 becomes Unknown, as in gRPC. */
export function csiErrorFromStatus(grpcCode: number, statusMessage: string): CsiError {
  return new CsiError(statusNameByCode.get(grpcCode) ?? "Unknown", statusMessage);
}

/**
 * What a handler's failure looks like to the caller. A thrown CsiError travels as it is; anything
 * else becomes Unknown with its message, which is what a Go gRPC server does with a plain error.
 */
export function toCsiError(error: unknown): CsiError {
  if (error instanceof CsiError) return error;
  if (error instanceof Error) return new CsiError("Unknown", error.message);
  return new CsiError("Unknown", String(error));
}

/**
 * Whether the operation is known to have stopped: true for every status except the non-final
 * ones. A value that is not a CsiError never reached the driver's answer, so the operation may be
 * in progress: not final (kubelet reasons the same way).
 */
export function isFinalCsiError(error: unknown): boolean {
  if (!(error instanceof CsiError)) return false;
  return !nonFinalStatusNames.has(error.code);
}
