/**
 * An etcd that cannot answer, as the API answers it. Kubernetes' storage layer turns an
 * unreachable store into "The create operation against pods could not be completed at this time,
 * please try again." (apiserver storage errors, InterpretCreateError and friends); kvol answers it
 * with 503 Service Unavailable and adds what etcd said, and a deadline that passed with
 * kube-apiserver's 504 "Timeout: request did not complete within requested timeout - context
 * deadline exceeded". etcd applies a transaction whole or not at all, so nothing is half-written;
 * the client retries once etcd is back.
 */
import { GRPCDeadlineExceededError, GRPCUnavailableError } from "etcd3";
import { errorMessage } from "../../runtime/error-message.ts";
import { ApiError } from "../errors.ts";

/** Messages of etcd (and of the client's circuit breaker) that mean "not reachable now". */
const unavailableMessages = [
  "circuit breaker is open",
  "etcdserver: no leader",
  "etcdserver: leader changed",
  "etcdserver: request timed out",
  "No connection established",
];

export type StorageOperation = "get" | "list" | "create" | "update" | "delete";

function isEtcdDeadlineExceeded(error: unknown): boolean {
  return error instanceof GRPCDeadlineExceededError;
}

function isEtcdUnavailable(error: unknown): boolean {
  if (error instanceof GRPCUnavailableError) return true;
  const message = errorMessage(error);
  return unavailableMessages.some((text) => message.includes(text));
}

/** The resource a Kubernetes key names: `/registry/pods/default/web` → `pods`. */
function resourceOfKey(key: string): string {
  return key.split("/")[2] ?? "objects";
}

/** etcd's failure as an API error when it is an outage; any other error as it is. */
export function storageError(operation: StorageOperation, key: string, endpoints: string, error: unknown): unknown {
  if (isEtcdDeadlineExceeded(error)) {
    return new ApiError(
      "Timeout",
      "Timeout: request did not complete within requested timeout - context deadline exceeded",
    );
  }
  if (!isEtcdUnavailable(error)) return error;
  return new ApiError(
    "ServiceUnavailable",
    `The ${operation} operation against ${resourceOfKey(key)} could not be completed at this time, please try again. (etcd at ${endpoints} is unavailable: ${errorMessage(error)})`,
  );
}
