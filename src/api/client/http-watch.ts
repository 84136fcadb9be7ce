/**
 * Reading a watch stream: newline-delimited `{"type": …, "object": …}` events from a streaming
 * response, each object frozen as every client result is. When the server ends the stream (its
 * watch timeout, a restart) the watcher receives an ERROR event, so an informer lists again
 * instead of waiting on a closed stream; after `stop` nothing more is delivered.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import type { WatchEvent } from "../store/store.ts";
import type { Watch } from "./client.ts";
import { deepFreeze } from "./copy.ts";

/** One line of a watch stream may not grow past this (3 MiB object limit plus its envelope). */
const maxWatchLineBytes = 4 * 1024 * 1024;

function endedStatus(message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", reason: "Timeout", code: 504, message };
}

export class HttpWatch<T> implements Watch {
  private stopped = false;
  private readonly abort: AbortController;
  private readonly onEvent: (event: WatchEvent<T>) => void;

  constructor(abort: AbortController, onEvent: (event: WatchEvent<T>) => void) {
    this.abort = abort;
    this.onEvent = onEvent;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
  }

  /** Reads `body` to its end, delivering each event; resolves when the stream is over. */
  async consume(body: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    try {
      for await (const chunk of body) {
        pending += decoder.decode(chunk, { stream: true });
        pending = this.deliverLines(pending);
        if (pending.length > maxWatchLineBytes)
          throw new Error(`a watch event is longer than ${maxWatchLineBytes} bytes`);
      }
      this.deliverLines(`${pending}\n`);
      this.deliver({ type: "ERROR", object: endedStatus("the server ended the watch stream; list again to resume") });
    } catch (error) {
      if (this.stopped) return;
      // A broken line or a failing handler ends this watch; release the connection with it.
      this.abort.abort();
      const why = errorMessage(error);
      this.deliver({ type: "ERROR", object: endedStatus(`the watch stream failed: ${why}`) });
    }
  }

  /** Delivers every complete line of `text`; returns the incomplete rest. */
  private deliverLines(text: string): string {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
      const line = text.slice(start, newline).trim();
      start = newline + 1;
      if (line !== "") this.deliver(deepFreeze(JSON.parse(line) as WatchEvent<unknown>));
    }
    return text.slice(start);
  }

  private deliver(event: WatchEvent<unknown>): void {
    if (this.stopped) return;
    // The server sends the watched resource's objects, and a Status for ERROR, as WatchEvent<T> allows.
    this.onEvent(event as WatchEvent<T>);
  }
}
