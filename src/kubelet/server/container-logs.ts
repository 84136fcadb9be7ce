/**
 * The kubelet's `GET /containerLogs/<namespace>/<pod>/<container>`: the container's log as text,
 * with the options the API server passes on from `kubectl logs` — `previous`, `timestamps` (each
 * line prefixed with its RFC 3339 time), `tailLines`, `sinceSeconds`, `limitBytes`, and `follow`,
 * which keeps the answer open, sending new lines until the container stops or the client leaves.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { type LogEntry, rfc3339Nano } from "../container/container-log.ts";
import type { ContainerLog } from "../container/container-log-reader.ts";

/** How often a follower looks for new lines. */
export const containerLogFollowPollMs = 250;

interface ContainerLogOptions {
  previous: boolean;
  follow: boolean;
  timestamps: boolean;
  tailLines: number | undefined;
  sinceSeconds: number | undefined;
  limitBytes: number | undefined;
}

/** A query the kubelet cannot read: answered 400 with this text. */
export class BadLogQuery extends Error {}

function count(query: URLSearchParams, name: string, minimum: number): number | undefined {
  const text = query.get(name);
  if (text === null || text === "") return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum) {
    throw new BadLogQuery(`${name}: Invalid value: ${text}: must be greater than or equal to ${minimum}`);
  }
  return value;
}

export function containerLogOptions(query: URLSearchParams): ContainerLogOptions {
  return {
    previous: query.get("previous") === "true",
    follow: query.get("follow") === "true",
    timestamps: query.get("timestamps") === "true",
    tailLines: count(query, "tailLines", 0),
    sinceSeconds: count(query, "sinceSeconds", 1),
    limitBytes: count(query, "limitBytes", 1),
  };
}

function renderLogEntries(entries: readonly LogEntry[], timestamps: boolean): string {
  return entries.map((entry) => `${timestamps ? `${rfc3339Nano(entry.timeMs)} ` : ""}${entry.text}\n`).join("");
}

/** The entries `sinceSeconds` and `tailLines` keep, oldest first. */
function selectLogEntries(entries: readonly LogEntry[], options: ContainerLogOptions, nowMs: number): LogEntry[] {
  const sinceSeconds = options.sinceSeconds;
  const since =
    sinceSeconds === undefined ? entries : entries.filter((e) => e.timeMs >= nowMs - sinceSeconds * msPerSecond);
  return options.tailLines === undefined ? [...since] : since.slice(Math.max(0, since.length - options.tailLines));
}

/** Writes the log of `container` as the options ask; resolves when the answer is complete. */
export async function serveContainerLog(
  request: IncomingMessage,
  response: ServerResponse,
  options: ContainerLogOptions,
  clock: Clock,
  read: (previous: boolean) => Promise<ContainerLog>,
): Promise<void> {
  const first = await read(options.previous);
  let budget = options.limitBytes ?? Number.POSITIVE_INFINITY;
  const send = (text: string): boolean => {
    const bytes = Buffer.from(text, "utf8");
    const part = bytes.subarray(0, Math.min(bytes.length, budget));
    budget -= part.length;
    if (part.length > 0) response.write(part);
    return budget > 0;
  };
  response.writeHead(200, { "Content-Type": "text/plain" });
  let more = send(renderLogEntries(selectLogEntries(first.entries, options, clock.now()), options.timestamps));
  let seen = first.entries.length;
  let running = first.running;
  let closed = false;
  request.on("close", () => {
    closed = true;
  });
  response.on("close", () => {
    closed = true;
  });
  while (options.follow && !options.previous && more && running && !closed) {
    await clock.sleep(containerLogFollowPollMs);
    if (closed) break;
    const next = await read(false);
    // A restarted container's log is a new file: follow it from its start.
    if (next.entries.length < seen) seen = 0;
    more = send(renderLogEntries(next.entries.slice(seen), options.timestamps));
    seen = next.entries.length;
    running = next.running;
  }
  response.end();
}
