/**
 * What a client command reads and writes, passed in so tests run commands against a test server
 * and read their output: the streams, whether they are terminals, the environment, the clock for
 * ages and waits, and a signal that ends a watch (Ctrl-C on the command line).
 */

import type { Clock } from "../../runtime/clock.ts";
import { RealClock } from "../../runtime/real-clock.ts";

export interface ClientIo {
  out(text: string): void;
  err(text: string): void;
  readStdin(): Promise<string>;
  /** Progress is shown only on a terminal. */
  readonly errIsTty: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  /** Aborted when the user interrupts: a watch stops and the command ends. */
  readonly signal: AbortSignal;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** The process's own streams; SIGINT aborts the signal instead of killing the process mid-write. */
export function processClientIo(): ClientIo {
  const interrupt = new AbortController();
  process.once("SIGINT", () => interrupt.abort());
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    readStdin: () => readAll(process.stdin),
    errIsTty: process.stderr.isTTY === true,
    env: process.env,
    clock: new RealClock(),
    signal: interrupt.signal,
  };
}
