/**
 * `kvol delete TYPE NAME… | TYPE/NAME… | -f FILE`: deletes objects as kubectl does — in the
 * background (dependents are collected afterwards), with the object's own grace period unless
 * `--grace-period` says otherwise — and by default waits until each object is gone (finalizers
 * done, the pod stopped), showing progress on a terminal when that takes more than a second.
 */
import { resourcePath } from "../api/client/http-transport.ts";
import { isNotFound } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import type { ResourceType } from "../api/resources.ts";
import { msPerSecond } from "../runtime/duration.ts";
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import {
  type Connection,
  connect,
  connectionOptions,
  connectionUsage,
  parseCommandArgs,
} from "./client/common-flags.ts";
import { readManifests } from "./client/manifest-files.ts";
import { targetOf } from "./client/manifest-target.ts";
import { type Progress, withProgress } from "./client/progress.ts";
import { parseResourceArgs, UsageError } from "./client/resource-args.ts";
import { exitFailure, exitSuccess, runClientCommand } from "./client/run-client-command.ts";

/** How long `--wait` waits for the objects to be gone when `--timeout` is not given. */
const defaultWaitTimeoutSeconds = 300;

export const deleteUsage = `Usage:
  kvol delete TYPE NAME... [flags]
  kvol delete TYPE/NAME... [flags]
  kvol delete TYPE (--all | -l SELECTOR) [flags]
  kvol delete -f FILENAME [flags]

Deletes objects and waits until they are gone.
  -f, --filename PATH     the objects of these manifests (a file, a directory, or - for stdin)
  --all                   every object of the kind in the namespace
  -l, --selector SEL      the objects whose labels match
  --grace-period SECONDS  how long a pod may take to stop (default: the pod's own)
  --cascade POLICY        background (default), foreground or orphan for dependents
  --wait=false            return once the deletion is accepted
  --timeout SECONDS       how long to wait for the objects to be gone (default ${defaultWaitTimeoutSeconds})
${connectionUsage}
`;

const cascadePolicies: Readonly<Record<string, string>> = {
  background: "Background",
  foreground: "Foreground",
  orphan: "Orphan",
};

const deleteOptions = {
  ...connectionOptions,
  filename: { type: "string", short: "f", multiple: true },
  all: { type: "boolean" },
  selector: { type: "string", short: "l" },
  "grace-period": { type: "string" },
  cascade: { type: "string" },
  wait: { type: "string" },
  timeout: { type: "string" },
} as const;

interface Target {
  type: ResourceType;
  namespace: string;
  name: string;
}

interface DeleteSettings {
  connection: Connection;
  body: Record<string, unknown>;
  wait: boolean;
  timeoutMs: number;
}

function seconds(text: string | undefined, flag: string, fallback: number | undefined): number | undefined {
  if (text === undefined) return fallback;
  if (!/^[0-9]+$/.test(text)) throw new UsageError(`${flag} must be a whole number of seconds, got "${text}"`);
  return Number(text);
}

async function namesOf(
  connection: Connection,
  type: ResourceType,
  namespace: string,
  selector: string | undefined,
): Promise<string[]> {
  const query = new URLSearchParams(selector === undefined ? {} : { labelSelector: selector });
  const list = await connection.api.json<{ items?: KObject[] }>({
    method: "GET",
    path: resourcePath(type, namespace),
    query,
  });
  return (list.items ?? []).map((item) => item.metadata?.name ?? "");
}

async function targetsFromArgs(
  connection: Connection,
  positionals: readonly string[],
  values: { all?: boolean | undefined; selector?: string | undefined },
): Promise<Target[]> {
  const targets: Target[] = [];
  for (const { type, names } of parseResourceArgs(positionals)) {
    const namespace = type.namespaced ? connection.namespace : "";
    const everything = values.all === true || values.selector !== undefined;
    if (names.length === 0 && !everything) {
      throw new UsageError(`name the ${type.plural} to delete, or pass --all or -l SELECTOR`);
    }
    const chosen = everything ? await namesOf(connection, type, namespace, values.selector) : names;
    targets.push(...chosen.map((name) => ({ type, namespace, name })));
  }
  return targets;
}

/** Waits until the object with this uid is gone: a watch on its name ends at its DELETED event. */
async function waitUntilGone(
  settings: DeleteSettings,
  target: Target,
  deleted: KObject,
  io: ClientIo,
): Promise<boolean> {
  const { api } = settings.connection;
  const path = resourcePath(target.type, target.namespace);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  io.signal.addEventListener("abort", onInterrupt);
  const timer = io.clock.setTimer(settings.timeoutMs, () => stop.abort());
  let gone = false;
  try {
    const current = await api.json<KObject>({
      method: "GET",
      path: resourcePath(target.type, target.namespace, target.name),
    });
    if (current.metadata?.uid !== deleted.metadata?.uid) return true;
    const query = new URLSearchParams({
      watch: "1",
      fieldSelector: `metadata.name=${target.name}`,
      resourceVersion: current.metadata?.resourceVersion ?? "0",
    });
    const response = await api.send({ method: "GET", path, query, signal: stop.signal });
    await response.eachLine((event) => {
      const { type, object } = event as { type: string; object: KObject };
      if (type === "DELETED" && object.metadata?.uid === deleted.metadata?.uid) {
        gone = true;
        stop.abort();
      }
    });
    return gone;
  } catch (error) {
    if (isNotFound(error)) return true;
    // Stopping the watch (the object is gone, the timeout passed, Ctrl-C) ends the read with an abort.
    if (stop.signal.aborted) return gone;
    throw error;
  } finally {
    timer.cancel();
    io.signal.removeEventListener("abort", onInterrupt);
  }
}

/** Sends the DELETE; the object as the server answered, or undefined when it was not there. */
async function requestDeletion(
  settings: DeleteSettings,
  target: Target,
  progress: Progress,
  io: ClientIo,
): Promise<KObject | undefined> {
  try {
    const deleted = await settings.connection.api.json<KObject>({
      method: "DELETE",
      path: resourcePath(target.type, target.namespace, target.name),
      body: settings.body,
    });
    progress.out(`${target.type.singular} "${target.name}" deleted\n`);
    return deleted;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    io.err(`Error from server (NotFound): ${target.type.plural} "${target.name}" not found\n`);
    return undefined;
  }
}

/**
 * Deletes every target first and only then waits, as kubectl does: a claim stays while the pod
 * using it exists, so waiting for it before deleting the pod would never end.
 */
async function deleteAll(
  settings: DeleteSettings,
  targets: readonly Target[],
  progress: Progress,
  io: ClientIo,
): Promise<number> {
  let failures = 0;
  const accepted: { target: Target; deleted: KObject }[] = [];
  for (const target of targets) {
    const deleted = await requestDeletion(settings, target, progress, io);
    if (deleted === undefined) failures++;
    else accepted.push({ target, deleted });
  }
  if (!settings.wait) return failures;
  for (const { target, deleted } of accepted) {
    if (io.signal.aborted) break;
    const label = `${target.type.singular} "${target.name}"`;
    progress.update(`waiting for ${label} to be gone`);
    if (await waitUntilGone(settings, target, deleted, io)) continue;
    failures++;
    if (!io.signal.aborted) io.err(`error: timed out waiting for ${label} to be deleted\n`);
  }
  return failures;
}

async function runDelete(argv: readonly string[], io: ClientIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, deleteOptions);
  if (values.help) {
    io.out(deleteUsage);
    return exitSuccess;
  }
  const connection = connect(values, io);
  const files = values.filename ?? [];
  if (files.length > 0 && positionals.length > 0)
    throw new UsageError("give either -f FILENAME or TYPE NAME, not both");
  const namespace = { value: connection.namespace, explicit: values.namespace !== undefined };
  const targets =
    files.length > 0
      ? (await readManifests(files, false, io)).map((m) => targetOf(m, namespace))
      : await targetsFromArgs(connection, positionals, values);
  const cascade = values.cascade === undefined ? "Background" : cascadePolicies[values.cascade];
  if (cascade === undefined)
    throw new UsageError(`--cascade must be background, foreground or orphan, got "${values.cascade}"`);
  const grace = seconds(values["grace-period"], "--grace-period", undefined);
  if (values.wait !== undefined && values.wait !== "true" && values.wait !== "false") {
    throw new UsageError(`--wait must be true or false, got "${values.wait}"`);
  }
  const settings: DeleteSettings = {
    connection,
    body: {
      kind: "DeleteOptions",
      apiVersion: "v1",
      propagationPolicy: cascade,
      ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
    },
    wait: values.wait !== "false",
    timeoutMs:
      (seconds(values.timeout, "--timeout", defaultWaitTimeoutSeconds) ?? defaultWaitTimeoutSeconds) * msPerSecond,
  };
  const failures = await withProgress(io, "deleting", (progress) => deleteAll(settings, targets, progress, io));
  if (targets.length === 0) io.err("No resources found\n");
  return failures > 0 ? exitFailure : exitSuccess;
}

export function runDeleteCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, deleteUsage, () => runDelete(argv, io));
}
