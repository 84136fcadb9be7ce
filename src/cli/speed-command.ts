/**
 * `kvol speed [S]`: prints, or changes, how fast the clock of a running `kvol up` cluster goes
 * against the wall clock, through the API server's administrator-only speed endpoint. The cluster
 * is found as kubectl finds it (client/kubeconfig.ts). `kvol speed 60` makes a minute of the
 * cluster pass each second; `kvol speed 1` returns to real time for the part worth watching.
 */
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import { connect, parseCommandArgs } from "./client/common-flags.ts";
import { kvolEndpointJson } from "./client/kvol-endpoints.ts";
import { UsageError } from "./client/resource-args.ts";
import { exitSuccess, runClientCommand } from "./client/run-client-command.ts";
import { type SpeedAnswer, speedPath } from "./embedded/speed-endpoint.ts";
import { maxSpeed, minSpeed } from "./embedded/wall-clock-pacer.ts";

export const speedUsage = `Usage:
  kvol speed [S] [--kubeconfig PATH] [--context NAME]

Prints how many times faster than the wall clock the running \`kvol up\` cluster's clock goes, or
sets it to S (${minSpeed} to ${maxSpeed}; 1 is real time, 60 a minute per second). Every Kubernetes
timer, backoff and lease keeps its proportions.

  --kubeconfig PATH   the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config, else
                      the one \`kvol up\` wrote in ~/.kvol or $KVOL_DATA_DIR)
  --context NAME      the kubeconfig context to use (default: its current context)
`;

const speedOptions = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parseSpeed(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < minSpeed || value > maxSpeed) {
    throw new UsageError(`the speed must be a number from ${minSpeed} to ${maxSpeed}, got ${JSON.stringify(text)}`);
  }
  return value;
}

async function runSpeed(argv: readonly string[], io: ClientIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, speedOptions);
  if (values.help) {
    io.out(speedUsage);
    return exitSuccess;
  }
  if (positionals.length > 1) throw new UsageError(`one speed only, got ${positionals.join(" ")}`);
  const [text] = positionals;
  const speed = text === undefined ? undefined : parseSpeed(text);
  const { api } = connect(values, io);
  const answer = await kvolEndpointJson<SpeedAnswer>(
    api,
    speed === undefined ? { method: "GET", path: speedPath } : { method: "PUT", path: speedPath, body: { speed } },
  );
  io.out(`speed: ${answer.speed}×${answer.speed === 1 ? " (real time)" : ""}\n`);
  return exitSuccess;
}

export function runSpeedCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, speedUsage, () => runSpeed(argv, io));
}
