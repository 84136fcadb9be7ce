/**
 * The web UI's live stream (live-stream-protocol.ts): the watches of several resources and the
 * components' debug states on one connection, so a page follows everything live and still leaves
 * the browser's other connections to `why` and its own requests.
 *
 * Each watch is authorized as the same client's `GET <list path>?watch=true` would be (its token,
 * its impersonation, RBAC, node restriction) and served from the store the server would serve it
 * from; one refused or ended watch is an ERROR line for that resource, the others go on. The
 * debug states come from one feed per server (debug-state-feed.ts), offered to the callers the
 * debug endpoints answer (administrators). The stream ends after the watch timeout, when the
 * client goes away, or when it reads too slowly.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, badRequest } from "../../api/errors.ts";
import type { KObject } from "../../api/objects.ts";
import { resourceForKind } from "../../api/resources.ts";
import type { StoreWatch, WatchEvent } from "../../api/store/store.ts";
import type { ExtensionServer, ServerExtension } from "../../apiserver/auth/access.ts";
import { notAuthorized } from "../../apiserver/auth/forbidden.ts";
import { isAdmin, type UserInfo } from "../../apiserver/auth/user-info.ts";
import { maxWatchBufferedBytes } from "../../apiserver/constants.ts";
import { watchTimeoutSeconds } from "../../apiserver/query-options.ts";
import { asApiError } from "../../apiserver/responses.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import { DebugStateFeed, type DebugUpdate } from "./debug-state-feed.ts";
import {
  debugResource,
  isLiveResource,
  type LiveLine,
  type LiveResource,
  liveResources,
  liveStreamPath,
} from "./live-stream-protocol.ts";
import { serverDebugSources } from "./server-debug-sources.ts";

export interface LiveStreamOptions {
  /** The clock that paces the debug feed's reads; the server's connection clock when absent. */
  feedClock?: Clock;
}

interface Request {
  watches: Map<LiveResource, string>;
  debug: boolean;
}

/** `watch=pods:12&watch=nodes&debug=true`, each parameter checked. */
export function parseLiveRequest(query: URLSearchParams): Request {
  const watches = new Map<LiveResource, string>();
  for (const value of query.getAll("watch")) {
    const [name = "", revision = "", ...extra] = value.split(":");
    if (!isLiveResource(name)) {
      throw badRequest(
        `watch: "${name}" is not a resource the stream watches; use ${Object.keys(liveResources).join(", ")}`,
      );
    }
    if (extra.length > 0 || (revision !== "" && !/^\d+$/.test(revision))) {
      throw badRequest(`watch: "${value}" must be RESOURCE or RESOURCE:RESOURCEVERSION (a number)`);
    }
    if (watches.has(name)) throw badRequest(`watch: ${name} is given twice`);
    watches.set(name, revision);
  }
  const debug = query.get("debug") ?? "false";
  if (debug !== "true" && debug !== "false") throw badRequest(`debug: must be true or false, not "${debug}"`);
  if (watches.size === 0 && debug !== "true")
    throw badRequest("watch: name at least one resource, or ask for debug=true");
  return { watches, debug: debug === "true" };
}

/** Why `user` may not read the debug states, in the debug endpoints' words; undefined when it may. */
function debugRefusal(user: UserInfo | undefined): string | undefined {
  if (user === undefined || isAdmin(user)) return undefined;
  const type = resourceForKind("Node");
  if (type === undefined) throw new Error("the Node resource is not registered");
  const kubelets = notAuthorized({ user: user.name, verb: "get", type, subresource: "proxy", namespace: "", name: "" });
  return `${kubelets.message}; forbidden: User "${user.name}" cannot get path "/debug/controllers/"`;
}

function debugLine(update: DebugUpdate): LiveLine {
  if (update.state !== undefined)
    return { resource: debugResource, type: "STATE", component: update.component, object: update.state };
  if (update.unreadable !== undefined)
    return { resource: debugResource, type: "UNREADABLE", component: update.component, message: update.unreadable };
  return { resource: debugResource, type: "GONE", component: update.component };
}

export function liveStreamEndpoint(options: LiveStreamOptions = {}): ServerExtension {
  let feed: DebugStateFeed | undefined;
  const feedOf = (server: ExtensionServer): DebugStateFeed => {
    const context = server.context;
    feed ??= new DebugStateFeed(
      serverDebugSources(context),
      options.feedClock ?? context.connectionClock ?? context.clock,
      context.logger,
    );
    return feed;
  };
  return {
    handles: (pathname) => pathname === liveStreamPath,
    serve: async (request: IncomingMessage, response: ServerResponse, user, server) => {
      if (request.method !== "GET") throw new ApiError("MethodNotAllowed", `${liveStreamPath} serves GET only`);
      const query = new URL(request.url ?? "/", "http://apiserver").searchParams;
      const wanted = parseLiveRequest(query);
      const timeoutMs = watchTimeoutSeconds(query) * msPerSecond;
      const context = server.context;
      response.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" });
      response.flushHeaders();

      const watches: StoreWatch[] = [];
      let unsubscribe: (() => void) | undefined;
      let timer: Timer | undefined;
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        timer?.cancel();
        for (const watch of watches) watch.stop();
        unsubscribe?.();
        response.end();
      };
      const send = (line: LiveLine): void => {
        if (ended) return;
        response.write(`${JSON.stringify(line)}\n`);
        if (response.writableLength > maxWatchBufferedBytes) {
          context.logger.warn("ending a live stream whose client reads too slowly", { user: user?.name });
          end();
        }
      };
      response.on("close", end);
      timer = (context.connectionClock ?? context.clock).setTimer(timeoutMs, end);

      await Promise.all(
        [...wanted.watches].map(async ([resource, revision]) => {
          const { kind, listPath } = liveResources[resource];
          const type = resourceForKind(kind);
          if (type === undefined) throw new Error(`the ${kind} resource is not registered`);
          try {
            const allowed = await server.authorizeAs("GET", `${listPath}?watch=true`);
            const started = await allowed.store.watch<KObject>(
              type,
              { ...(revision === "" ? {} : { resourceVersion: revision }), allowBookmarks: true },
              (event: WatchEvent<KObject>) => send({ resource, type: event.type, object: event.object } as LiveLine),
            );
            if (ended) started.stop();
            else watches.push(started);
          } catch (error) {
            send({ resource, type: "ERROR", object: asApiError(error).toStatus() });
          }
        }),
      );
      if (wanted.debug) {
        const refusal = debugRefusal(user);
        if (refusal !== undefined)
          send({ resource: debugResource, type: "UNREADABLE", component: "", message: refusal });
        else if (!ended) {
          unsubscribe = feedOf(server).subscribe((updates) => {
            for (const update of updates) send(debugLine(update));
          });
        }
      }
    },
  };
}
