/**
 * One command run to its end for end-to-end tests (kubectl, mostly): its exit status and output,
 * killed with SIGKILL when it outlives its timeout.
 */
import { spawn } from "node:child_process";
import { RealClock } from "../../runtime/real-clock.ts";

const clock = new RealClock();

export interface CommandRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCommand(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  /** Written to the command's stdin, which then closes; without it, stdin is /dev/null. */
  input?: string,
): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { env, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    child.stdin?.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = clock.setTimer(timeoutMs, () => child.kill("SIGKILL"));
    child.on("close", (status) => {
      timer.cancel();
      resolve({ status, stdout, stderr });
    });
  });
}
