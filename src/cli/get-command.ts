/**
 * `kvol get TYPE[,TYPE…] [NAME…]`: objects as kubectl shows them, from the server's Table output
 * (the columns of Kubernetes' printers), or as YAML, JSON or names; `-w` keeps printing changes.
 */

import { resourcePath } from "../api/client/http-transport.ts";
import { isNotFound } from "../api/errors.ts";
import type { KObject } from "../api/objects.ts";
import type { ResourceType } from "../api/resources.ts";
import { type ClientIo, processClientIo } from "./client/client-io.ts";
import {
  type Connection,
  connect,
  connectionOptions,
  connectionUsage,
  parseCommandArgs,
} from "./client/common-flags.ts";
import { tableAccept } from "./client/kube-api.ts";
import { formatObjects, type OutputFormat, parseOutputFormat, type TypedObject } from "./client/object-output.ts";
import { parseResourceArgs, qualifiedKindName, type ResourceSelection, UsageError } from "./client/resource-args.ts";
import { exitFailure, exitSuccess, runClientCommand } from "./client/run-client-command.ts";
import { columnWidths, formatLines, tableLines, type WireTable } from "./client/table-text.ts";

export const getUsage = `Usage:
  kvol get TYPE[,TYPE...] [NAME...] [flags]
  kvol get TYPE/NAME... [flags]

Shows objects as kubectl does: pods, nodes, pv, pvc, storageclasses, volumeattachments, events, ...
  -o, --output FORMAT       wide, yaml, json or name (default: a table)
  -w, --watch               after listing, print each change until interrupted
  -A, --all-namespaces      objects of every namespace
  -l, --selector SELECTOR   only objects whose labels match (app=web,tier!=db)
  --field-selector SEL      only objects whose fields match (spec.nodeName=node-1)
${connectionUsage}
`;

const getOptions = {
  ...connectionOptions,
  output: { type: "string", short: "o" },
  watch: { type: "boolean", short: "w" },
  "all-namespaces": { type: "boolean", short: "A" },
  selector: { type: "string", short: "l" },
  "field-selector": { type: "string" },
} as const;

interface GetRequest {
  connection: Connection;
  format: OutputFormat;
  allNamespaces: boolean;
  query: URLSearchParams;
}

interface Fetched {
  tables: { type: ResourceType; table: WireTable }[];
  objects: TypedObject[];
  failures: string[];
}

function scopeNamespace(request: GetRequest, type: ResourceType): string {
  return type.namespaced && !request.allNamespaces ? request.connection.namespace : "";
}

async function fetchSelection(request: GetRequest, selection: ResourceSelection, into: Fetched): Promise<void> {
  const { api } = request.connection;
  const { type } = selection;
  const namespace = scopeNamespace(request, type);
  const asTable = request.format === "table" || request.format === "wide";
  const accept = asTable ? tableAccept : "application/json";
  const paths =
    selection.names.length === 0
      ? [resourcePath(type, namespace)]
      : selection.names.map((n) => resourcePath(type, namespace, n));
  for (const [index, path] of paths.entries()) {
    try {
      const body = await api.json<WireTable & KObject & { items?: KObject[] }>({
        method: "GET",
        path,
        query: request.query,
        accept,
      });
      if (asTable) into.tables.push({ type, table: body });
      else if (selection.names.length === 0)
        into.objects.push(...(body.items ?? []).map((object) => ({ type, object })));
      else into.objects.push({ type, object: body });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      into.failures.push(`Error from server (NotFound): ${type.plural} "${selection.names[index]}" not found\n`);
    }
  }
}

function noResourcesText(request: GetRequest, selections: readonly ResourceSelection[]): string {
  const namespaced = selections.some((s) => s.type.namespaced);
  return namespaced && !request.allNamespaces
    ? `No resources found in ${request.connection.namespace} namespace.\n`
    : "No resources found\n";
}

function printTables(request: GetRequest, fetched: Fetched, io: ClientIo): void {
  const byType = new Map<ResourceType, WireTable>();
  for (const { type, table } of fetched.tables) {
    const merged = byType.get(type);
    if (merged === undefined) byType.set(type, { ...table, rows: [...(table.rows ?? [])] });
    else merged.rows?.push(...(table.rows ?? []));
  }
  const blocks = [...byType].filter(([, table]) => (table.rows ?? []).length > 0);
  const several = byType.size > 1;
  const texts = blocks.map(([type, table]) => {
    const lines = tableLines(table, {
      wide: request.format === "wide",
      withNamespace: request.allNamespaces && type.namespaced,
      ...(several ? { namePrefix: `${qualifiedKindName(type)}/` } : {}),
    });
    return formatLines(lines, columnWidths(lines));
  });
  io.out(texts.join("\n"));
}

async function watchChanges(
  request: GetRequest,
  selection: ResourceSelection,
  resourceVersion: string,
  widths: number[],
  io: ClientIo,
): Promise<void> {
  const { type } = selection;
  const query = new URLSearchParams(request.query);
  query.set("watch", "1");
  query.set("resourceVersion", resourceVersion);
  if (selection.names.length === 1) query.set("fieldSelector", `metadata.name=${selection.names[0]}`);
  const asTable = request.format === "table" || request.format === "wide";
  const response = await request.connection.api.send({
    method: "GET",
    path: resourcePath(type, scopeNamespace(request, type)),
    query,
    accept: asTable ? tableAccept : "application/json",
    signal: io.signal,
  });
  try {
    await response.eachLine((event) => {
      const { type: eventType, object } = event as { type: string; object: WireTable & KObject };
      if (eventType === "BOOKMARK" || eventType === "ERROR") return;
      if (!asTable) {
        io.out(formatObjects([{ type, object }], request.format as "yaml" | "json" | "name", true));
        return;
      }
      const lines = tableLines(object, {
        wide: request.format === "wide",
        withNamespace: request.allNamespaces && type.namespaced,
      }).slice(1);
      io.out(formatLines(lines, columnWidths(lines, widths)));
    });
  } catch (error) {
    // An interrupted watch ends the command normally, as Ctrl-C ends kubectl get -w.
    if (!io.signal.aborted) throw error;
  }
}

async function runGet(argv: readonly string[], io: ClientIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, getOptions);
  if (values.help) {
    io.out(getUsage);
    return exitSuccess;
  }
  const selections = parseResourceArgs(positionals);
  const format = parseOutputFormat(values.output);
  if (values.watch && selections.length > 1) throw new UsageError("you may only watch one kind of resource at a time");
  const query = new URLSearchParams();
  if (values.selector) query.set("labelSelector", values.selector);
  if (values["field-selector"]) query.set("fieldSelector", values["field-selector"]);
  const request: GetRequest = {
    connection: connect(values, io),
    format,
    allNamespaces: values["all-namespaces"] === true,
    query,
  };
  const fetched: Fetched = { tables: [], objects: [], failures: [] };
  for (const selection of selections) await fetchSelection(request, selection, fetched);
  for (const failure of fetched.failures) io.err(failure);
  const rows = fetched.tables.reduce((sum, { table }) => sum + (table.rows ?? []).length, 0) + fetched.objects.length;
  if (format === "table" || format === "wide") printTables(request, fetched, io);
  else if (rows > 0) {
    const single = selections.length === 1 && selections[0]?.names.length === 1;
    io.out(formatObjects(fetched.objects, format, single));
  }
  if (rows === 0 && fetched.failures.length === 0 && !values.watch) io.err(noResourcesText(request, selections));
  const [only] = selections;
  if (values.watch && only !== undefined) await watchAfterListing(request, only, fetched, io);
  return fetched.failures.length > 0 ? exitFailure : exitSuccess;
}

/** `-w`: prints each change after the listing, in the listing's column widths, until interrupted. */
async function watchAfterListing(
  request: GetRequest,
  selection: ResourceSelection,
  fetched: Fetched,
  io: ClientIo,
): Promise<void> {
  const first = fetched.tables[0]?.table;
  const withNamespace = request.allNamespaces && selection.type.namespaced;
  const listed = first === undefined ? [] : tableLines(first, { wide: request.format === "wide", withNamespace });
  const resourceVersion = first?.metadata?.resourceVersion ?? (await listResourceVersion(request, selection));
  await watchChanges(request, selection, resourceVersion, columnWidths(listed), io);
}

/** The revision to watch from when the output was not a list table (YAML, a named object). */
async function listResourceVersion(request: GetRequest, selection: ResourceSelection): Promise<string> {
  const list = await request.connection.api.json<{ metadata?: { resourceVersion?: string } }>({
    method: "GET",
    path: resourcePath(selection.type, scopeNamespace(request, selection.type)),
    query: new URLSearchParams({ limit: "1" }),
  });
  return list.metadata?.resourceVersion ?? "0";
}

export function runGetCommand(argv: readonly string[], io: ClientIo = processClientIo()): Promise<number> {
  return runClientCommand(io, getUsage, () => runGet(argv, io));
}
