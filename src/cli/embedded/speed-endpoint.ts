/**
 * `kvol speed` reaches the running cluster through the API server: an administrator-only endpoint
 * beside the fault endpoint,
 *
 *   GET /apis/kvol.io/v1alpha1/speed   {"kind": "Speed", "speed": 60, "time": "2026-…000Z"}
 *   PUT /apis/kvol.io/v1alpha1/speed   {"speed": 10}   paces the cluster's clock 10× from now on
 *
 * Any authenticated user may read it (`kvol describe` counts event ages on the cluster's clock,
 * which runs ahead of the wall clock after a run at a speed above 1); only administrators change it.
 *
 * A cluster whose nodes run elsewhere on the wall clock (`kvol server` with `kvol node`, real
 * nodes) keeps speed 1 and answers a PUT with a 400 that says why.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, badRequest } from "../../api/errors.ts";
import type { ServerExtension } from "../../apiserver/auth/access.ts";
import { forbidden } from "../../apiserver/auth/forbidden.ts";
import { isAdmin, type UserInfo } from "../../apiserver/auth/user-info.ts";
import { readBodyObject } from "../../apiserver/request-body.ts";
import { sendJson } from "../../apiserver/responses.ts";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { faultsGroup, faultsVersion } from "./fault-endpoint.ts";

export const speedPath = `/apis/${faultsGroup}/${faultsVersion}/speed`;

/** What the endpoint controls: the pacer, unless the cluster cannot change its pace. */
export interface SpeedControl {
  readonly speed: number;
  /** The cluster clock's time, epoch milliseconds. */
  now(): number;
  /** Throws a RangeError naming the allowed range. */
  setSpeed(speed: number): void;
  /** Why the speed cannot change (nodes on the wall clock); undefined when it can. */
  readonly fixedBecause: string | undefined;
}

export interface SpeedAnswer {
  kind: "Speed";
  apiVersion: string;
  speed: number;
  /** The cluster clock's time (RFC 3339 with microseconds). */
  time: string;
}

function answer(control: SpeedControl): SpeedAnswer {
  const time = formatRfc3339Micro(control.now());
  return { kind: "Speed", apiVersion: `${faultsGroup}/${faultsVersion}`, speed: control.speed, time };
}

function newSpeed(body: Record<string, unknown>, control: SpeedControl): number {
  if (typeof body.speed !== "number")
    throw badRequest("speed: must be a number (1 is real time, 60 a minute per second)");
  if (control.fixedBecause !== undefined) throw badRequest(`the speed cannot change: ${control.fixedBecause}`);
  return body.speed;
}

export function speedEndpoint(control: SpeedControl, logger: Logger): ServerExtension {
  return {
    handles: (pathname) => pathname === speedPath,
    serve: async (request: IncomingMessage, response: ServerResponse, user: UserInfo | undefined) => {
      const method = request.method ?? "GET";
      if (user !== undefined && !isAdmin(user) && method !== "GET") {
        throw forbidden(
          { group: faultsGroup, plural: "speed" },
          "",
          `User "${user.name}" cannot update resource "speed" in API group "${faultsGroup}" at the cluster scope`,
        );
      }
      if (method === "GET") {
        sendJson(response, 200, answer(control));
        return;
      }
      if (method !== "PUT")
        throw new ApiError("MethodNotAllowed", `the speed endpoint serves GET and PUT, not ${method}`);
      const speed = newSpeed(await readBodyObject(request), control);
      try {
        control.setSpeed(speed);
      } catch (error) {
        throw badRequest(`speed: ${errorMessage(error)}`);
      }
      logger.info("speed changed", { speed, user: user?.name ?? "" });
      sendJson(response, 200, answer(control));
    },
  };
}
