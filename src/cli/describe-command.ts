/**
 * `kvol describe TYPE NAME…`: a readable account of pods, claims, volumes, nodes and volume
 * attachments with the events about them, as kubectl describe prints it. Without a name, every
 * object of the kind in the namespace is described.
 */
import { resourcePath } from "../api/client/http-transport.ts";
import { isNotFound } from "../api/errors.ts";
import type { KObject, Node, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from "../api/objects.ts";
import type { ResourceType } from "../api/resources.ts";
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import { connect, connectionOptions, connectionUsage, parseCommandArgs } from "./client/common-flags.ts";
import { clusterNowMs } from "./client/kvol-endpoints.ts";
import { parseResourceArgs, UsageError } from "./client/resource-args.ts";
import { exitFailure, exitSuccess, runClientCommand } from "./client/run-client-command.ts";
import type { DescribeContext } from "./describe/describe-context.ts";
import { describeNode } from "./describe/node-describer.ts";
import { describePod } from "./describe/pod-describer.ts";
import { describeClaim, describeVolume, describeVolumeAttachment } from "./describe/storage-describers.ts";

export const describeUsage = `Usage:
  kvol describe TYPE [NAME...] [flags]
  kvol describe TYPE/NAME... [flags]

Describes pods, persistentvolumeclaims (pvc), persistentvolumes (pv), nodes and volumeattachments,
with the events about each.
${connectionUsage}
`;

type Describer = (context: DescribeContext, object: KObject) => Promise<string>;

const describers: Readonly<Record<string, Describer>> = {
  Pod: (context, object) => describePod(context, object as Pod),
  PersistentVolumeClaim: (context, object) => describeClaim(context, object as PersistentVolumeClaim),
  PersistentVolume: (context, object) => describeVolume(context, object as PersistentVolume),
  Node: (context, object) => describeNode(context, object as Node),
  VolumeAttachment: (context, object) => describeVolumeAttachment(context, object as unknown as VolumeAttachment),
};

function describerFor(type: ResourceType): Describer {
  const describer = describers[type.kind];
  if (describer === undefined) {
    throw new UsageError(
      `kvol describes pods, pvc, pv, nodes and volumeattachments, not ${type.plural}; use \`kvol get ${type.plural} -o yaml\``,
    );
  }
  return describer;
}

async function runDescribe(argv: readonly string[], io: ClientIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, connectionOptions);
  if (values.help) {
    io.out(describeUsage);
    return exitSuccess;
  }
  const selections = parseResourceArgs(positionals);
  const { api, namespace } = connect(values, io);
  const blocks: string[] = [];
  let failures = 0;
  for (const { type, names } of selections) {
    const describe = describerFor(type);
    const scope = type.namespaced ? namespace : "";
    let objects: KObject[] = [];
    if (names.length === 0) {
      objects = (await api.json<{ items?: KObject[] }>({ method: "GET", path: resourcePath(type, scope) })).items ?? [];
    }
    for (const name of names) {
      try {
        objects.push(await api.json<KObject>({ method: "GET", path: resourcePath(type, scope, name) }));
      } catch (error) {
        if (!isNotFound(error)) throw error;
        failures++;
        io.err(`Error from server (NotFound): ${type.plural} "${name}" not found\n`);
      }
    }
    const nowMs = await clusterNowMs(api, io.clock.now());
    for (const object of objects) blocks.push(await describe({ api, nowMs }, object));
  }
  io.out(blocks.join("\n\n"));
  if (blocks.length === 0 && failures === 0) io.err(`No resources found in ${namespace} namespace.\n`);
  return failures > 0 ? exitFailure : exitSuccess;
}

export function runDescribeCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, describeUsage, () => runDescribe(argv, io));
}
