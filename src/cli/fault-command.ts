/**
 * `kvol fault NAME [VALUE…] [key=value…] [--heal]`: injects a fault of the simulator's catalogue into
 * the cluster `kvol up` runs, through the API server's administrator-only fault endpoint, with the
 * server and token of the data directory's kubeconfig. Values without a key fill the fault's
 * required parameters in order: `kvol fault node-power-off node-2` is `node=node-2`.
 * `kvol fault --list` prints the catalogue.
 */
import { parseArgs } from "node:util";
import { RealClock } from "../runtime/real-clock.ts";
import { faultCatalogue } from "../sim/faults/catalogue.ts";
import type { FaultDefinition, FaultParams } from "../sim/faults/fault.ts";
import { type CommandIo, errorText, exitFailure, exitOk, exitUsage, processIo } from "./command-io.ts";
import { DataDir, defaultDataDir, plainHttpUrl, readKubeconfig } from "./embedded/data-dir.ts";
import { faultsPath } from "./embedded/fault-endpoint.ts";
import { StepProgress } from "./step-progress.ts";

export const faultUsage = `Usage:
  kvol fault NAME [VALUE…] [key=value…] [--heal] [--data-dir D]
  kvol fault --list

Injects a fault of the catalogue into the running \`kvol up\` cluster (the one whose data directory
is D, default $KVOL_DATA_DIR or ~/.kvol). Values without a key fill the fault's required
parameters in order: \`kvol fault node-power-off node-2\`. --heal ends a lasting fault.
`;

export interface FaultArguments {
  list: boolean;
  name: string;
  params: Record<string, string>;
  heal: boolean;
  dataDir: string;
}

/** Splits `key=value` words from bare values; bare values fill the required parameters in order. */
export function faultParams(fault: FaultDefinition, words: readonly string[]): FaultParams {
  const params: Record<string, string> = {};
  const bare: string[] = [];
  for (const word of words) {
    const equals = word.indexOf("=");
    if (equals > 0) params[word.slice(0, equals)] = word.slice(equals + 1);
    else bare.push(word);
  }
  const unfilled = fault.params.filter((param) => param.required && params[param.name] === undefined);
  if (bare.length > unfilled.length) {
    const names = fault.params.map((param) => param.name).join(", ") || "none";
    throw new Error(
      `fault ${fault.name}: too many values (${bare.join(" ")}); its parameters are ${names}; write key=value`,
    );
  }
  bare.forEach((value, index) => {
    const param = unfilled[index];
    if (param !== undefined) params[param.name] = value;
  });
  return params;
}

export function parseFaultArguments(argv: readonly string[]): FaultArguments | { help: true } {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      list: { type: "boolean" },
      heal: { type: "boolean" },
      "data-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { help: true };
  const dataDir = values["data-dir"] ?? defaultDataDir();
  if (values.list) return { list: true, name: "", params: {}, heal: false, dataDir };
  const [name, ...words] = positionals;
  if (name === undefined) throw new Error("the fault NAME is missing (kvol fault --list shows them)");
  const fault = faultCatalogue.get(name);
  if (fault === undefined) {
    throw new Error(`unknown fault "${name}"; known faults: ${[...faultCatalogue.keys()].join(", ")}`);
  }
  return {
    list: false,
    name,
    params: faultParams(fault, words) as Record<string, string>,
    heal: values.heal ?? false,
    dataDir,
  };
}

function catalogueText(): string {
  const width = Math.max(...[...faultCatalogue.keys()].map((name) => name.length)) + 2;
  const rows = [...faultCatalogue.values()].map((fault) => {
    const params = fault.params.map((param) => (param.required ? param.name : `[${param.name}]`)).join(" ");
    return `  ${fault.name.padEnd(width)}${fault.models}${params === "" ? "" : `\n  ${"".padEnd(width)}parameters: ${params}`}`;
  });
  return `Faults (kvol fault NAME …):\n${rows.join("\n")}\n`;
}

async function send(args: FaultArguments): Promise<string> {
  const access = readKubeconfig(new DataDir(args.dataDir).kubeconfigFile);
  const url = `${plainHttpUrl(access.server)}${faultsPath}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { Authorization: `Bearer ${access.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ fault: args.name, params: args.params, heal: args.heal }),
    });
  } catch (error) {
    throw new Error(
      `cannot reach the cluster at ${url} (${errorText(error)}); is \`kvol up\` running on ${args.dataDir}?`,
    );
  }
  const text = await response.text();
  if (response.ok) return args.heal ? `fault ${args.name} healed\n` : `fault ${args.name} injected\n`;
  const message = (JSON.parse(text) as { message?: unknown }).message;
  throw new Error(typeof message === "string" ? message : `HTTP ${response.status}: ${text}`);
}

export async function runFaultCommand(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  let parsed: ReturnType<typeof parseFaultArguments>;
  try {
    parsed = parseFaultArguments(argv);
  } catch (error) {
    io.stderr(`kvol fault: ${errorText(error)}\n\n${faultUsage}`);
    return exitUsage;
  }
  if ("help" in parsed) {
    io.stdout(`${faultUsage}\n${catalogueText()}`);
    return exitOk;
  }
  if (parsed.list) {
    io.stdout(catalogueText());
    return exitOk;
  }
  try {
    const what = parsed.heal ? `healing ${parsed.name}` : `injecting ${parsed.name}`;
    const progress = new StepProgress(new RealClock(), io.stderr);
    io.stdout(await progress.step(what, () => send(parsed)));
    return exitOk;
  } catch (error) {
    io.stderr(`kvol fault: ${errorText(error)}\n`);
    return exitFailure;
  }
}
