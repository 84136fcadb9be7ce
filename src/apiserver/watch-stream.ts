/**
 * A watch over HTTP, as kube-apiserver streams one: status 200, chunked transfer, one JSON
 * `{"type": …, "object": …}` per line; or, when the client negotiated protobuf
 * (`application/vnd.kubernetes.protobuf;stream=watch`), one frame per event: a 4-byte big-endian
 * length, then a `k8s\0`-enveloped WatchEvent whose object is a RawExtension holding the enveloped
 * object (kube-apiserver's length-delimited framing). A watch the store refuses (410 Gone for a compacted
 * resourceVersion) is still a 200 with a single ERROR event carrying the Status, which is what
 * reflectors expect. The stream ends after its timeout (through the Clock), when the client goes
 * away, or when the client reads too slowly to keep up.
 */

import type { KObject } from "../api/objects.ts";
import type { ResourceType } from "../api/resources.ts";
import type { StoreWatch, WatchEvent } from "../api/store/store.ts";
import type { Timer } from "../runtime/clock.ts";
import { msPerSecond } from "../runtime/duration.ts";
import { maxWatchBufferedBytes } from "./constants.ts";
import { metadataOfObject } from "./partial-metadata.ts";
import { watchOptions, watchTimeoutSeconds } from "./query-options.ts";
import type { ResourceRequest } from "./request-context.ts";
import { asApiError, outputChoice } from "./responses.ts";
import { bookmarkAsTable, objectsAsTable } from "./table.ts";
import type { OutputChoice } from "./table-negotiation.ts";
import { type WatchEncoder, watchEncoderFor } from "./watch-framing.ts";

/**
 * The event as the client asked for it: the object itself, its metadata only (a metadata
 * informer), or a Table of one row (kubectl get -w).
 */
function eventBody(event: WatchEvent<unknown>, choice: OutputChoice, type: ResourceType, nowMs: number): unknown {
  if (event.type === "ERROR") return event.object;
  const object = event.object as KObject;
  if (choice.metadata !== undefined) return metadataOfObject(object, choice.metadata, type, true);
  const table = choice.table;
  if (table === undefined) return event.object;
  if (event.type === "BOOKMARK") return bookmarkAsTable(object.metadata?.resourceVersion, table);
  return objectsAsTable([object], { kind: type.kind, table, nowMs });
}

export async function handleWatch(context: ResourceRequest): Promise<void> {
  const { server, path, query, response } = context;
  const choice = outputChoice(context);
  const encoder: WatchEncoder = watchEncoderFor(choice.serializer, path.type);
  const options = watchOptions(query, path.namespace);
  const timeoutMs = watchTimeoutSeconds(query) * msPerSecond;
  response.writeHead(200, { "Content-Type": encoder.contentType, "Transfer-Encoding": "chunked" });
  response.flushHeaders();

  let storeWatch: StoreWatch | undefined;
  let timer: Timer | undefined;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    timer?.cancel();
    storeWatch?.stop();
    response.end();
  };
  const send = (event: WatchEvent<unknown>): void => {
    if (ended) return;
    const object = eventBody(event, choice, path.type, server.clock.now());
    response.write(encoder.frame(event.type, object));
    if (response.writableLength > maxWatchBufferedBytes) {
      server.logger.warn("ending a watch whose client reads too slowly", { resource: path.type.plural });
      end();
    }
  };

  // The response closes when the client goes away (the request stream is never read, so only this one tells).
  response.on("close", end);
  timer = (server.connectionClock ?? server.clock).setTimer(timeoutMs, end);
  try {
    const started = await server.store.watch<KObject>(path.type, options, send);
    if (ended) started.stop();
    else storeWatch = started;
  } catch (error) {
    send({ type: "ERROR", object: asApiError(error).toStatus() });
    end();
  }
}
