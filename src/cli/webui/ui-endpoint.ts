/**
 * Serves the web UI's files under `/ui/` of the API server (`kvol up`, `kvol server`). The files
 * hold no cluster data, so they are served without credentials, as `/version` is; the page then
 * reads the cluster with the user's token like any client, and sees what that user may read.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../../api/errors.ts";
import type { ServerExtension } from "../../apiserver/auth/access.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { ensureUiBuilt, readUiFile, uiFiles } from "./ui-assets.ts";
import { uiPathPrefix } from "./ui-data.ts";

const contentTypes: Readonly<Record<string, string>> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
};

/** The built file a path names: a plain file name directly under /ui/, nothing else. */
function fileOf(pathname: string): string | undefined {
  const rest = pathname.slice(uiPathPrefix.length);
  if (rest === "" || rest === uiFiles.page) return uiFiles.page;
  return /^[A-Za-z0-9_-]+\.(js|css|svg)$/.test(rest) ? rest : undefined;
}

export function uiEndpoint(): ServerExtension {
  const bare = uiPathPrefix.replace(/\/$/, "");
  return {
    public: true,
    handles: (pathname) => pathname === bare || pathname.startsWith(uiPathPrefix),
    serve: async (request: IncomingMessage, response: ServerResponse) => {
      const pathname = new URL(request.url ?? "/", "http://apiserver").pathname;
      if (pathname === bare) {
        response.writeHead(301, { Location: uiPathPrefix });
        response.end();
        return;
      }
      if (request.method !== "GET" && request.method !== "HEAD") {
        throw new ApiError("MethodNotAllowed", `the web UI serves GET only, not ${request.method}`);
      }
      const file = fileOf(pathname);
      if (file === undefined) throw new ApiError("NotFound", `the web UI has no file at ${pathname}`);
      try {
        await ensureUiBuilt();
      } catch (error) {
        throw new ApiError(
          "ServiceUnavailable",
          `the web UI is not built and could not be built here (${errorMessage(error)}); run npm run build:ui`,
        );
      }
      let body: Buffer;
      try {
        body = readUiFile(file);
      } catch {
        throw new ApiError("NotFound", `the web UI has no file at ${pathname}`);
      }
      response.writeHead(200, {
        "Content-Type": contentTypes[file.split(".").at(-1) ?? ""] ?? "application/octet-stream",
        "Cache-Control": "no-cache",
      });
      response.end(request.method === "HEAD" ? undefined : body);
    },
  };
}
