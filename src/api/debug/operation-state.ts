/**
 * An operation's debug entry from its backoff record: whether it runs, and once it failed, the
 * last error and when the next attempt is permitted ("No retries permitted until").
 */
import type { ExponentialBackoff } from "../../runtime/backoff.ts";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import { formatGoDuration } from "../../runtime/duration.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { OperationDebugState } from "./debug-state.ts";

interface OperationIdentity {
  operationName: string;
  volumeName: string;
  podName: string;
  nodeName: string;
}

export function operationDebugState(
  identity: OperationIdentity,
  running: boolean,
  backoff: ExponentialBackoff,
): OperationDebugState {
  const state: OperationDebugState = { ...identity, running };
  if (backoff.durationBeforeRetryMs === 0) return state;
  return {
    ...state,
    lastError: errorMessage(backoff.lastError),
    lastErrorTime: formatRfc3339Micro(backoff.lastErrorTimeMs),
    noRetriesPermittedUntil: formatRfc3339Micro(backoff.retryPermittedAfterMs()),
    durationBeforeRetry: formatGoDuration(backoff.durationBeforeRetryMs),
  };
}
