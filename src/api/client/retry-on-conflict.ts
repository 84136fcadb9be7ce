/**
 * Read-modify-write with optimistic concurrency, as client-go's `retry.RetryOnConflict`: when a write
 * loses a race (409 Conflict), read the newer object and apply the change again.
 *
 * client-go pauses about 10 ms between attempts; kvol does not, because every attempt re-reads the
 * object and that, not the pause, is what resolves the conflict. Without a pause the client needs no
 * Clock and a retry costs no virtual time.
 */
import { isConflict } from "../errors.ts";
import { jsonEqual } from "../store/json-equal.ts";
import type { ApiObject, MutateFn, MutateOptions, ResourceClient } from "./client.ts";
import { clone, withStoredParts } from "./copy.ts";

/** client-go's `retry.DefaultRetry.Steps`: attempts before a Conflict is returned to the caller. */
export const conflictRetryMaxAttempts = 5;

/** Runs `attempt` until it does not fail with Conflict, at most `maxAttempts` times; the last Conflict is rethrown. */
export async function retryOnConflict<R>(
  attempt: () => Promise<R>,
  maxAttempts: number = conflictRetryMaxAttempts,
): Promise<R> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || attemptNumber >= maxAttempts) throw error;
    }
  }
}

/** get → copy → `fn(copy)` → update (or updateStatus) unless nothing changed, retried on Conflict. */
export function mutateWithRetry<T extends ApiObject>(
  client: Pick<ResourceClient<T>, "get" | "update" | "updateStatus">,
  namespace: string,
  name: string,
  fn: MutateFn<T>,
  options: MutateOptions = {},
): Promise<T> {
  return retryOnConflict(async () => {
    const current = await client.get(namespace, name);
    const draft = clone(current);
    fn(draft);
    // `changed` is JSON-equal to the draft and shares every unchanged part with `current`, so the
    // comparison walks only what the caller touched, where comparing the draft walked it all. It
    // is `current` itself in the usual unchanged case; a draft equal to it in all but field order
    // or undefined fields still counts as unchanged.
    const changed = withStoredParts(draft as T, current);
    if (changed === current || jsonEqual(changed, current)) return current;
    return options.subresource === "status" ? client.updateStatus(changed) : client.update(changed);
  });
}
