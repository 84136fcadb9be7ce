/**
 * `kvol apply -f FILE|DIR|-`: creates or updates every object of the manifests with server-side
 * apply (PATCH application/apply-patch+yaml, field manager `kvol`), in file and document order.
 * A refused object is reported and the rest still applied; the exit status is then 1.
 */
import { resourcePath } from "../api/client/http-transport.ts";
import { ApiError } from "../api/errors.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import {
  type Connection,
  connect,
  connectionOptions,
  connectionUsage,
  parseCommandArgs,
} from "./client/common-flags.ts";
import { readManifests } from "./client/manifest-files.ts";
import { ManifestError, type ManifestTarget, targetOf } from "./client/manifest-target.ts";
import { type Progress, withProgress } from "./client/progress.ts";
import { objectRef } from "./client/resource-args.ts";
import { exitFailure, exitSuccess, runClientCommand } from "./client/run-client-command.ts";

export const applyUsage = `Usage:
  kvol apply -f FILENAME [-f FILENAME...] [flags]

Creates or updates the objects of YAML or JSON manifests with server-side apply.
  -f, --filename PATH     a file, a directory of .yaml/.yml/.json files, or - for stdin
  -R, --recursive         also read the directories under a -f directory
  --field-manager NAME    the manager owning the applied fields (default: kvol)
  --force-conflicts       take over fields another manager owns instead of failing
${connectionUsage}
`;

export const defaultFieldManager = "kvol";
const applyPatchType = "application/apply-patch+yaml";

const applyOptions = {
  ...connectionOptions,
  filename: { type: "string", short: "f", multiple: true },
  recursive: { type: "boolean", short: "R" },
  "field-manager": { type: "string" },
  "force-conflicts": { type: "boolean" },
} as const;

interface ApplySettings {
  connection: Connection;
  fieldManager: string;
  force: boolean;
}

/** Applies one object; answers what kubectl prints after its name. */
async function applyOne(settings: ApplySettings, target: ManifestTarget): Promise<string> {
  const query = new URLSearchParams({ fieldManager: settings.fieldManager });
  if (settings.force) query.set("force", "true");
  const response = await settings.connection.api.send({
    method: "PATCH",
    path: resourcePath(target.type, target.namespace, target.name),
    query,
    body: JSON.stringify(target.object),
    contentType: applyPatchType,
  });
  response.discard();
  return response.status === 201 ? "created" : "serverside-applied";
}

function failureLine(error: unknown): string {
  if (error instanceof ApiError) return `Error from server (${error.reason}): ${error.message}\n`;
  return `error: ${errorMessage(error)}\n`;
}

async function applyAll(
  settings: ApplySettings,
  targets: readonly ManifestTarget[],
  progress: Progress,
  io: ClientIo,
): Promise<number> {
  let failures = 0;
  for (const [index, target] of targets.entries()) {
    progress.update(`applying ${index + 1}/${targets.length}: ${objectRef(target.type, target.name)}`);
    try {
      const outcome = await applyOne(settings, target);
      progress.out(`${objectRef(target.type, target.name)} ${outcome}\n`);
    } catch (error) {
      failures++;
      io.err(failureLine(error));
    }
  }
  return failures;
}

async function runApply(argv: readonly string[], io: ClientIo): Promise<number> {
  const { values } = parseCommandArgs(argv, applyOptions);
  if (values.help) {
    io.out(applyUsage);
    return exitSuccess;
  }
  const manifests = await readManifests(values.filename ?? [], values.recursive === true, io);
  const connection = connect(values, io);
  const namespace = { value: connection.namespace, explicit: values.namespace !== undefined };
  const targets: ManifestTarget[] = [];
  let failures = 0;
  for (const manifest of manifests) {
    try {
      targets.push(targetOf(manifest, namespace));
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      failures++;
      io.err(`error: ${error.message}\n`);
    }
  }
  const settings: ApplySettings = {
    connection,
    fieldManager: values["field-manager"] ?? defaultFieldManager,
    force: values["force-conflicts"] === true,
  };
  failures += await withProgress(io, "applying", (progress) => applyAll(settings, targets, progress, io));
  return failures > 0 ? exitFailure : exitSuccess;
}

export function runApplyCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, applyUsage, () => runApply(argv, io));
}
