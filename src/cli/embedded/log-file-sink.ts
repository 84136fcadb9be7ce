/**
 * A LogSink appending one line per record to a file (`kvol.log` in the data directory). Records
 * reach it already masked by the Logger, so no secret is ever written.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { formatLogLine, type LogRecord, type LogSink } from "../../runtime/logger.ts";

export class LogFileSink implements LogSink {
  readonly path: string;
  private readonly stream: WriteStream;
  private readonly alsoToStderr: boolean;

  constructor(path: string, options: { alsoToStderr?: boolean } = {}) {
    this.path = path;
    this.stream = createWriteStream(path, { flags: "a", mode: 0o600 });
    this.alsoToStderr = options.alsoToStderr ?? false;
  }

  write(record: LogRecord): void {
    const line = `${formatLogLine(record)}\n`;
    if (!this.stream.writableEnded) this.stream.write(line);
    if (this.alsoToStderr) process.stderr.write(line);
  }

  /** Flushes what is buffered and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
