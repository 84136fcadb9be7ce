/**
 * `kvol up` as a child process for end-to-end tests: started on a free port in a given data
 * directory, ready once it printed its kubeconfig and its nodes; stopped with SIGINT (then
 * SIGKILL if it does not exit).
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RealClock } from "../runtime/real-clock.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const kvolBin = join(repoRoot, "bin", "kvol.js");
const clock = new RealClock();
const startTimeoutMs = 30_000;
const stopTimeoutMs = 10_000;
const pollMs = 100;

export interface KvolUp {
  process: ChildProcess;
  kubeconfig: string;
  output(): string;
}

export async function startKvolUp(dataDir: string): Promise<KvolUp> {
  const child = spawn(process.execPath, [kvolBin, "up", "--port", "0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer): void => {
    output += chunk.toString("utf8");
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const deadline = clock.now() + startTimeoutMs;
  while (clock.now() < deadline && !/Ready: \d+ node/.test(output) && child.exitCode === null) {
    await clock.sleep(pollMs);
  }
  const kubeconfig = /^kubeconfig: (.+)$/m.exec(output)?.[1];
  assert.ok(kubeconfig !== undefined && /Ready: \d+ node/.test(output), `kvol up did not start:\n${output}`);
  return { process: child, kubeconfig, output: () => output };
}

export async function stopKvolUp(cluster: KvolUp): Promise<void> {
  if (cluster.process.exitCode !== null) return;
  cluster.process.kill("SIGINT");
  for (let waited = 0; waited < stopTimeoutMs && cluster.process.exitCode === null; waited += pollMs) {
    await clock.sleep(pollMs);
  }
  if (cluster.process.exitCode === null) cluster.process.kill("SIGKILL");
}
