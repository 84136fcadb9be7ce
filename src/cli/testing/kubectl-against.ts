/**
 * kubectl against a cluster an end-to-end test started: the kubeconfig is read when each command
 * runs, since the test learns it only once `kvol up` has written it.
 */
import assert from "node:assert/strict";
import { type CommandRun, runCommand } from "./run-command.ts";

export interface KubectlAgainst {
  /** Runs kubectl and returns what it did, whatever its exit status. */
  kubectl(args: readonly string[], input?: string): Promise<CommandRun>;
  /** Runs kubectl, fails the test unless it exits 0, and returns its stdout. */
  kubectlOk(args: readonly string[], input?: string): Promise<string>;
  /** `kubectl … -o json` parsed, or undefined when kubectl fails (the object is not there yet). */
  jsonOf<T>(args: readonly string[]): Promise<T | undefined>;
}

export function kubectlAgainst(kubeconfig: () => string, commandTimeoutMs: number): KubectlAgainst {
  const kubectl = (args: readonly string[], input?: string) =>
    runCommand("kubectl", args, { ...process.env, KUBECONFIG: kubeconfig() }, commandTimeoutMs, input);
  return {
    kubectl,
    async kubectlOk(args, input) {
      const run = await kubectl(args, input);
      assert.equal(run.status, 0, `kubectl ${args.join(" ")}: ${run.stderr}${run.stdout}`);
      return run.stdout;
    },
    async jsonOf<T>(args: readonly string[]) {
      const run = await kubectl([...args, "-o", "json"]);
      return run.status === 0 ? (JSON.parse(run.stdout) as T) : undefined;
    },
  };
}
