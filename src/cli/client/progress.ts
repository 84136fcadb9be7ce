/**
 * A progress line on stderr for anything that takes longer than `progressAfterMs`: shown only on a
 * terminal (never in a pipe, never mixed into `-o json` output on stdout), rewritten in place as
 * the work moves on, and erased when it ends or before a result line is printed.
 */
import type { Timer } from "../../runtime/clock.ts";
import { progressAfterMs } from "../embedded/constants.ts";
import type { ClientIo } from "./client-io.ts";

/** How often a shown progress line refreshes its elapsed time. */
const progressRefreshMs = 250;
const eraseLine = "\r\u001b[K";

export class Progress {
  private text: string;
  private shown = false;
  private timer: Timer | undefined;
  private readonly startedMs: number;

  constructor(
    private readonly io: ClientIo,
    text: string,
  ) {
    this.text = text;
    this.startedMs = io.clock.now();
    if (io.errIsTty) this.timer = io.clock.setTimer(progressAfterMs, () => this.tick());
  }

  /** What the work is doing now; shown at the next refresh. */
  update(text: string): void {
    this.text = text;
  }

  /** Prints a result line on stdout without the progress line in the way. */
  out(line: string): void {
    if (this.shown) this.io.err(eraseLine);
    this.io.out(line);
    if (this.shown) this.render();
  }

  /** Erases the line and stops refreshing. */
  end(): void {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.shown) this.io.err(eraseLine);
    this.shown = false;
  }

  private tick(): void {
    this.shown = true;
    this.render();
    this.timer = this.io.clock.setTimer(progressRefreshMs, () => this.tick());
  }

  private render(): void {
    const seconds = Math.floor((this.io.clock.now() - this.startedMs) / 1000);
    this.io.err(`${eraseLine}${this.text} (${seconds}s)`);
  }
}

/** Runs `work` with a progress line that appears only if it takes more than a second on a terminal. */
export async function withProgress<T>(
  io: ClientIo,
  text: string,
  work: (progress: Progress) => Promise<T>,
): Promise<T> {
  const progress = new Progress(io, text);
  try {
    return await work(progress);
  } finally {
    progress.end();
  }
}
