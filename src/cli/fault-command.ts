/**
 * `kvol fault NAME [VALUE…] [key=value…] [--heal]`: injects a fault of the simulator's catalogue into
 * a running `kvol up` cluster, through the API server's administrator-only fault endpoint. The
 * cluster is found as kubectl finds it (`--kubeconfig`, $KUBECONFIG, `--context`: client/kubeconfig.ts).
 * Values without a key fill the fault's required parameters in order: `kvol fault node-power-off
 * node-2` is `node=node-2`. `kvol fault --list` prints the catalogue.
 */
import { join } from "node:path";
import { faultCatalogue } from "../sim/faults/catalogue.ts";
import type { FaultDefinition, FaultParams } from "../sim/faults/fault.ts";
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import { connect, parseCommandArgs } from "./client/common-flags.ts";
import { kvolEndpointJson } from "./client/kvol-endpoints.ts";
import { withProgress } from "./client/progress.ts";
import { UsageError } from "./client/resource-args.ts";
import { exitSuccess, runClientCommand } from "./client/run-client-command.ts";
import { kubeconfigFileName } from "./embedded/constants.ts";
import { faultsPath } from "./embedded/fault-endpoint.ts";

export const faultUsage = `Usage:
  kvol fault NAME [VALUE…] [key=value…] [--heal] [--kubeconfig PATH] [--context NAME]
  kvol fault --list

Injects a fault of the catalogue into a running \`kvol up\` cluster. Values without a key fill
the fault's required parameters in order: \`kvol fault node-power-off node-2\`. --heal ends a
lasting fault.

  --kubeconfig PATH   the kubeconfig to use (default: $KUBECONFIG, else ~/.kube/config, else
                      the one \`kvol up\` wrote in ~/.kvol or $KVOL_DATA_DIR)
  --context NAME      the kubeconfig context to use (default: its current context)
  --data-dir D        the cluster of the \`kvol up\` whose data directory is D (its kubeconfig)
`;

export interface FaultArguments {
  list: boolean;
  name: string;
  params: Record<string, string>;
  heal: boolean;
  /** Where the cluster is: --kubeconfig (or the kubeconfig of --data-dir) and --context. */
  kubeconfig: string | undefined;
  context: string | undefined;
}

const faultOptions = {
  list: { type: "boolean" },
  heal: { type: "boolean" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  "data-dir": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

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
  const { values, positionals } = parseCommandArgs(argv, faultOptions);
  if (values.help) return { help: true };
  if (values.kubeconfig !== undefined && values["data-dir"] !== undefined) {
    throw new UsageError("--kubeconfig and --data-dir both name the cluster; pass one of them");
  }
  const dataDirKubeconfig = values["data-dir"] === undefined ? undefined : join(values["data-dir"], kubeconfigFileName);
  const where = { kubeconfig: values.kubeconfig ?? dataDirKubeconfig, context: values.context };
  if (values.list) return { list: true, name: "", params: {}, heal: false, ...where };
  const [name, ...words] = positionals;
  if (name === undefined) throw new UsageError("the fault NAME is missing (kvol fault --list shows them)");
  const fault = faultCatalogue.get(name);
  if (fault === undefined) {
    throw new UsageError(`unknown fault "${name}"; known faults: ${[...faultCatalogue.keys()].join(", ")}`);
  }
  let params: FaultParams;
  try {
    params = faultParams(fault, words);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { list: false, name, params: params as Record<string, string>, heal: values.heal ?? false, ...where };
}

function catalogueText(): string {
  const width = Math.max(...[...faultCatalogue.keys()].map((name) => name.length)) + 2;
  const rows = [...faultCatalogue.values()].map((fault) => {
    const params = fault.params.map((param) => (param.required ? param.name : `[${param.name}]`)).join(" ");
    return `  ${fault.name.padEnd(width)}${fault.models}${params === "" ? "" : `\n  ${"".padEnd(width)}parameters: ${params}`}`;
  });
  return `Faults (kvol fault NAME …):\n${rows.join("\n")}\n`;
}

async function send(args: FaultArguments, io: ClientIo): Promise<string> {
  const { api } = connect({ kubeconfig: args.kubeconfig, context: args.context }, io);
  await kvolEndpointJson(api, {
    method: "POST",
    path: faultsPath,
    body: { fault: args.name, params: args.params, heal: args.heal },
  });
  return args.heal ? `fault ${args.name} healed\n` : `fault ${args.name} injected\n`;
}

async function runFault(argv: readonly string[], io: ClientIo): Promise<number> {
  const parsed = parseFaultArguments(argv);
  if ("help" in parsed) {
    io.out(`${faultUsage}\n${catalogueText()}`);
    return exitSuccess;
  }
  if (parsed.list) {
    io.out(catalogueText());
    return exitSuccess;
  }
  const what = parsed.heal ? `healing ${parsed.name}` : `injecting ${parsed.name}`;
  io.out(await withProgress(io, what, () => send(parsed, io)));
  return exitSuccess;
}

export function runFaultCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, faultUsage, () => runFault(argv, io));
}
