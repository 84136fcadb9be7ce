/**
 * Writes a container's stdout and stderr to its log file in the CRI logging format the kubelet
 * reads for `kubectl logs`: one record per line, `<RFC 3339 time, nanoseconds> <stream> <tag>
 * <text>`, tag `F` for a full line and `P` for a part of a line longer than the buffer.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { type Clock, formatRfc3339Micro } from "../../runtime/clock.ts";

/** A line longer than this is written in parts tagged P, as containerd's 16 KiB buffer does. */
const maxLogLineBytes = 16 * 1024;

type LogStream = "stdout" | "stderr";

/** `2026-11-27T02:10:15.123000000Z`: Clock time has millisecond precision, written as nanoseconds. */
export function formatCriLogTime(epochMs: number): string {
  return `${formatRfc3339Micro(epochMs).slice(0, -1)}000Z`;
}

function criLogRecord(time: string, stream: LogStream, tag: "F" | "P", text: string): string {
  return `${time} ${stream} ${tag} ${text}\n`;
}

export class ContainerLogWriter {
  private readonly file: WriteStream;
  private readonly pending: Record<LogStream, Buffer> = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  private open = 0;
  readonly closed: Promise<void>;
  private resolveClosed: (() => void) | undefined;

  constructor(
    readonly path: string,
    private readonly clock: Clock,
  ) {
    this.file = createWriteStream(path, { flags: "a", mode: 0o640 });
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** Copies `source` into the log until it ends; the file closes once every attached stream has. */
  attach(stream: LogStream, source: Readable): void {
    this.open += 1;
    source.on("data", (chunk: Buffer) => this.write(stream, chunk));
    source.on("close", () => {
      this.flushPartial(stream);
      this.open -= 1;
      if (this.open === 0) this.file.end(() => this.resolveClosed?.());
    });
  }

  private write(stream: LogStream, chunk: Buffer): void {
    let data = Buffer.concat([this.pending[stream], chunk]);
    const time = formatCriLogTime(this.clock.now());
    for (let newline = data.indexOf(10); newline >= 0; newline = data.indexOf(10)) {
      this.emit(stream, time, data.subarray(0, newline), "F");
      data = data.subarray(newline + 1);
    }
    while (data.length >= maxLogLineBytes) {
      this.emit(stream, time, data.subarray(0, maxLogLineBytes), "P");
      data = data.subarray(maxLogLineBytes);
    }
    this.pending[stream] = Buffer.from(data);
  }

  /** What is left without a newline when the stream ends is a last, partial record. */
  private flushPartial(stream: LogStream): void {
    if (this.pending[stream].length === 0) return;
    this.emit(stream, formatCriLogTime(this.clock.now()), this.pending[stream], "P");
    this.pending[stream] = Buffer.alloc(0);
  }

  private emit(stream: LogStream, time: string, text: Buffer, tag: "F" | "P"): void {
    this.file.write(criLogRecord(time, stream, tag, text.toString("utf8")));
  }
}
