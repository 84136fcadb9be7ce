/**
 * The container monitor's process: `node --import tsx container-shim-main.ts <container dir>`,
 * started by LinuxRuntimeService (container-shim.ts says what it does).
 */

import { errorMessage } from "../../runtime/error-message.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { runContainerShim } from "./container-shim.ts";

const containerDir = process.argv[2];
if (containerDir === undefined) {
  process.stderr.write("usage: container-shim-main.ts <container dir>\n");
  process.exitCode = 2;
} else {
  // A signal meant for the agent's terminal must not end the monitor: the container outlives the agent.
  for (const signal of ["SIGINT", "SIGHUP", "SIGTERM"] as const) process.on(signal, () => undefined);
  runContainerShim(containerDir, new RealClock()).then(
    () => {
      process.exitCode = 0;
    },
    (error: unknown) => {
      process.stderr.write(`container monitor: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
