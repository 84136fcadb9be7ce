/**
 * Container logs as the kubelet keeps them: one file per container instance at
 * `/var/log/pods/<namespace>_<pod>_<uid>/<container>/<restartCount>.log` on the node, each line in
 * the CRI format `<RFC 3339 nano time> <stdout|stderr> F <text>`. The simulated runtime writes
 * them (what the command prints, and lifecycle lines for programs that print nothing); the
 * kubelet's log reader turns them back into what `kubectl logs` shows.
 */
import type { Host } from "../../host/host.ts";
import { HostError } from "../../host/host.ts";
import { formatRfc3339Micro, parseRfc3339 } from "../../runtime/clock.ts";

const podLogsRootDir = "/var/log/pods";
const logDirMode = 0o755;
const logFileMode = 0o640;
/** Decodes every log file read (a decoder without `stream` keeps no state between calls): one per read was garbage at once. */
const utf8 = new TextDecoder();

type LogStream = "stdout" | "stderr";

export interface LogEntry {
  timeMs: number;
  stream: LogStream;
  text: string;
}

function podLogDir(namespace: string, podName: string, podUID: string): string {
  return `${podLogsRootDir}/${namespace}_${podName}_${podUID}`;
}

export function containerLogPath(
  namespace: string,
  podName: string,
  podUID: string,
  container: string,
  restartCount: number,
): string {
  return `${podLogDir(namespace, podName, podUID)}/${container}/${restartCount}.log`;
}

/** RFC 3339 with nine fraction digits, as the CRI writes each line's time. */
function criTime(epochMs: number): string {
  return `${formatRfc3339Micro(epochMs).slice(0, -1)}000Z`;
}

/** RFC 3339 with the fraction's trailing zeros dropped (Go's RFC3339Nano), as `kubectl logs --timestamps` prints it. */
export function rfc3339Nano(epochMs: number): string {
  const iso = formatRfc3339Micro(epochMs);
  const fraction = iso.slice(20, 23).replace(/0+$/, "");
  return `${iso.slice(0, 19)}${fraction === "" ? "" : `.${fraction}`}Z`;
}

function criLine(entry: LogEntry): string {
  return `${criTime(entry.timeMs)} ${entry.stream} F ${entry.text}\n`;
}

/** The entries of a CRI log file; lines that are not in the format are skipped. */
export function parseCriLog(text: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of text.split("\n")) {
    const match = /^(\S+) (stdout|stderr) [FP] (.*)$/.exec(line);
    if (match === null) continue;
    const [, time = "", stream, body = ""] = match;
    const timeMs = parseRfc3339(time);
    if (Number.isNaN(timeMs)) continue;
    entries.push({ timeMs, stream: stream as LogStream, text: body });
  }
  return entries;
}

function isMissing(error: unknown): boolean {
  return error instanceof HostError && error.code === "ENOENT";
}

/** Appends lines to container log files on one host, one write at a time per host (no interleaving). */
export class ContainerLogWriter {
  private readonly host: Host;
  private chain: Promise<void> = Promise.resolve();

  constructor(host: Host) {
    this.host = host;
  }

  append(path: string, entries: readonly LogEntry[]): Promise<void> {
    const write = async () => {
      await this.host.mkdir(path.slice(0, path.lastIndexOf("/")), logDirMode, { recursive: true });
      const existing = await this.read(path);
      await this.host.writeFile(path, existing + entries.map(criLine).join(""), logFileMode);
    };
    this.chain = this.chain.then(write, write);
    return this.chain;
  }

  /** Waits for the writes queued so far. */
  flushed(): Promise<void> {
    return this.chain.catch(() => undefined);
  }

  async read(path: string): Promise<string> {
    try {
      return utf8.decode(await this.host.readFile(path));
    } catch (error) {
      if (isMissing(error)) return "";
      throw error;
    }
  }

  async removePodLogs(namespace: string, podName: string, podUID: string): Promise<void> {
    const dir = podLogDir(namespace, podName, podUID);
    const remove = async () => {
      for (const container of await this.readdirOrEmpty(dir)) {
        for (const file of await this.readdirOrEmpty(`${dir}/${container}`))
          await this.host.unlink(`${dir}/${container}/${file}`);
        await this.host.rmdir(`${dir}/${container}`);
      }
      if ((await this.readdirOrEmpty(dir)).length === 0) await this.rmdirIfPresent(dir);
    };
    this.chain = this.chain.then(remove, remove);
    return this.chain;
  }

  private async readdirOrEmpty(path: string): Promise<string[]> {
    try {
      return await this.host.readdir(path);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  private async rmdirIfPresent(path: string): Promise<void> {
    try {
      await this.host.rmdir(path);
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
}
