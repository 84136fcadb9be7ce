/**
 * Runs a client command body and turns what it throws into the exit status and one line on
 * stderr, as kubectl does: `Error from server (Reason): …` and 1 for a refused request, `error: …` and 1
 * for anything else (no kubeconfig, an unreachable server), the
 * usage and 2 for bad arguments.
 */
import { ApiError } from "../../api/errors.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { ClientIo } from "./client-io.ts";
import { UsageError } from "./resource-args.ts";

export const exitSuccess = 0;
export const exitFailure = 1;
export const exitUsage = 2;

export async function runClientCommand(io: ClientIo, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`error: ${error.message}\n\n${usage}`);
      return exitUsage;
    }
    if (error instanceof ApiError) {
      io.err(`Error from server (${error.reason}): ${error.message}\n`);
      return exitFailure;
    }
    io.err(`error: ${errorMessage(error)}\n`);
    return exitFailure;
  }
}
