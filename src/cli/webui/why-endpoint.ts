/**
 * `kvol why` for the web UI, next to the Kubernetes API:
 *
 *   GET /apis/kvol.io/v1alpha1/why?kind=pod&namespace=NS&name=NAME   the report as `kvol why -o json` prints it
 *
 * The report is told by the same code as the command, reading the API server over HTTPS with the
 * caller's own credentials: it sees exactly what the caller may read (a user who may not read the
 * debug endpoints gets the chain told from objects and events, with those listed as not read).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, badRequest } from "../../api/errors.ts";
import type { ServerExtension } from "../../apiserver/auth/access.ts";
import { sendJson } from "../../apiserver/responses.ts";
import { KubeApi } from "../client/kube-api.ts";
import { ObjectNotFound, type WhyKind } from "../why/explain.ts";
import { reportJson } from "../why/why-report.ts";
import { whyReport } from "../why-command.ts";
import { whyPath } from "./ui-data.ts";

const kindsByWord: Readonly<Record<string, WhyKind>> = {
  pod: "Pod",
  pvc: "PersistentVolumeClaim",
  pv: "PersistentVolume",
  volumeattachment: "VolumeAttachment",
  node: "Node",
};

export interface WhyEndpointOptions {
  /** The API server's own address (known once it listens), read back over HTTP as a client would. */
  serverUrl: () => string;
  /** The certificate authority of that address when it is `https://` (PEM). */
  serverCaPem?: () => string;
  /** This machine's clock, for a cluster whose clock cannot be read. */
  nowMs: () => number;
}

function bearerToken(request: IncomingMessage): string | undefined {
  const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? "");
  return match?.[1];
}

export function whyEndpoint(options: WhyEndpointOptions): ServerExtension {
  return {
    handles: (pathname) => pathname === whyPath,
    serve: async (request: IncomingMessage, response: ServerResponse) => {
      if (request.method !== "GET") throw new ApiError("MethodNotAllowed", `${whyPath} serves GET only`);
      const query = new URL(request.url ?? "/", "http://apiserver").searchParams;
      const word = query.get("kind") ?? "";
      const kind = kindsByWord[word.toLowerCase()];
      if (kind === undefined) {
        throw badRequest(`kind: must be one of ${Object.keys(kindsByWord).join(", ")}, not "${word}"`);
      }
      const name = query.get("name") ?? "";
      if (name === "") throw badRequest("name: the name of the object is required");
      const token = bearerToken(request);
      const caPem = options.serverCaPem?.();
      const api = new KubeApi({
        server: options.serverUrl(),
        ...(token === undefined ? {} : { token }),
        ...(caPem === undefined ? {} : { caPem }),
      });
      try {
        const { report, nowMs } = await whyReport(
          api,
          kind,
          query.get("namespace") ?? "default",
          name,
          options.nowMs(),
        );
        sendJson(response, 200, reportJson(report, nowMs));
      } catch (error) {
        if (error instanceof ObjectNotFound) throw new ApiError("NotFound", error.message);
        throw error;
      }
    },
  };
}
