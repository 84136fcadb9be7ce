/** A VolumeLogger that keeps every line, so tests can assert what an operator would read in the log. */
import type { VolumeLogger } from "../volume-host.ts";

export class RecordingLogger implements VolumeLogger {
  readonly lines: string[] = [];

  info(message: string): void {
    this.lines.push(`I ${message}`);
  }

  warning(message: string): void {
    this.lines.push(`W ${message}`);
  }

  /** True when some warning contains `text`. */
  warned(text: string): boolean {
    return this.lines.some((line) => line.startsWith("W ") && line.includes(text));
  }
}
