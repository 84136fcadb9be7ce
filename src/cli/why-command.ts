/**
 * `kvol why KIND/NAME [-n NS] [-o json]`: why a pod, claim, volume, volume attachment or node is
 * stuck — the causal chain down to the lowest thing that blocks it, each link with its evidence
 * and how long it has been so, and what to do (docs/why.md). It reads only the API: objects,
 * events and the components' debug endpoints, so it works on any kvol cluster.
 */
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import { connect, connectionOptions, connectionUsage, parseCommandArgs } from "./client/common-flags.ts";
import type { KubeApi } from "./client/kube-api.ts";
import { clusterNowMs } from "./client/kvol-endpoints.ts";
import { parseResourceArgs, UsageError } from "./client/resource-args.ts";
import { exitFailure, exitSuccess, runClientCommand } from "./client/run-client-command.ts";
import { Chain } from "./why/chain.ts";
import { explain, ObjectNotFound, type WhyKind } from "./why/explain.ts";
import { WhyReader } from "./why/why-reader.ts";
import { reportJson, reportText, type WhyReport } from "./why/why-report.ts";

export const whyUsage = `Usage:
  kvol why KIND/NAME [-n NS] [-o json] [flags]

Why is it stuck? Prints the chain from the object to the lowest thing that blocks it (a claim
that is not bound, a volume attached elsewhere, a mount that fails on the node, a node that is
down), each link with its evidence and for how long, then what to do.
KIND is pod, pvc, pv, volumeattachment or node.

  -o, --output json   the same report as JSON
${connectionUsage}
`;

const kinds: readonly WhyKind[] = ["Pod", "PersistentVolumeClaim", "PersistentVolume", "VolumeAttachment", "Node"];

const whyOptions = { ...connectionOptions, output: { type: "string", short: "o" } } as const;

function target(positionals: readonly string[]): { kind: WhyKind; name: string } {
  if (positionals.length !== 1 || !positionals[0]?.includes("/")) {
    throw new UsageError("give one object as KIND/NAME, e.g. pod/web-0 or pvc/data");
  }
  const [selection] = parseResourceArgs([positionals[0]]);
  const kind = kinds.find((candidate) => candidate === selection?.type.kind);
  const name = selection?.names[0];
  if (kind === undefined || name === undefined) {
    throw new UsageError(`kvol why explains pods, pvc, pv, volumeattachments and nodes, not ${selection?.type.plural}`);
  }
  return { kind, name };
}

/** The report for one object, read over `api` (also what tests call). */
export async function whyReport(
  api: KubeApi,
  kind: WhyKind,
  namespace: string,
  name: string,
  localNowMs: number,
): Promise<{ report: WhyReport; nowMs: number }> {
  const nowMs = await clusterNowMs(api, localNowMs);
  const chain = new Chain(new WhyReader(api, nowMs));
  const scope = kind === "Pod" || kind === "PersistentVolumeClaim" ? namespace : "";
  return { report: await explain(chain, kind, scope, name), nowMs };
}

async function runWhy(argv: readonly string[], io: ClientIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, whyOptions);
  if (values.help) {
    io.out(whyUsage);
    return exitSuccess;
  }
  const output = values.output ?? "";
  if (output !== "" && output !== "json") throw new UsageError(`unknown output format "${output}": use -o json`);
  const { kind, name } = target(positionals);
  const { api, namespace } = connect(values, io);
  try {
    const { report, nowMs } = await whyReport(api, kind, namespace, name, io.clock.now());
    io.out(output === "json" ? `${JSON.stringify(reportJson(report, nowMs), null, 2)}\n` : reportText(report, nowMs));
    return exitSuccess;
  } catch (error) {
    if (!(error instanceof ObjectNotFound)) throw error;
    io.err(`Error from server (NotFound): ${error.message}\n`);
    return exitFailure;
  }
}

export function runWhyCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, whyUsage, () => runWhy(argv, io));
}
