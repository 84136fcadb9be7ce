/**
 * `kvol fault` reaches the running cluster through the API server: an administrator-only endpoint
 * next to the Kubernetes API,
 *
 *   GET  /apis/kvol.io/v1alpha1/faults   the catalogue; with `?targets=true` each fault's parameter
 *                                        sets that apply to this cluster now (none: it cannot apply here)
 *   POST /apis/kvol.io/v1alpha1/faults   {"fault": "node-power-off", "params": {"node": "node-2"}, "heal": false}
 *
 * A POST injects the fault (or heals it) into the Cluster and answers 201 once it is in place. An
 * unknown fault is a 404, a bad parameter a 400 naming it, anyone but an administrator a 403.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, badRequest } from "../../api/errors.ts";
import type { ServerExtension } from "../../apiserver/auth/access.ts";
import { forbidden } from "../../apiserver/auth/forbidden.ts";
import { isAdmin, type UserInfo } from "../../apiserver/auth/user-info.ts";
import { isPlainObject, readBodyObject } from "../../apiserver/request-body.ts";
import { sendJson } from "../../apiserver/responses.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { faultCatalogue } from "../../sim/faults/catalogue.ts";
import type { FaultDefinition, FaultParams, FaultParamValue } from "../../sim/faults/fault.ts";

export const faultsGroup = "kvol.io";
export const faultsVersion = "v1alpha1";
export const faultsPath = `/apis/${faultsGroup}/${faultsVersion}/faults`;

/** What the 403 and 404 Statuses name: the `faults` resource of kvol.io. */
const faultsResource = { group: faultsGroup, plural: "faults" };

interface FaultRequest {
  fault: string;
  params: FaultParams;
  /** Ends a lasting fault instead of starting it. */
  heal: boolean;
}

/** The catalogue entry as the endpoint lists it. */
interface FaultSummary {
  name: string;
  models: string;
  kubernetesReaction: string;
  lasting: boolean;
  params: FaultDefinition["params"];
  /** With `?targets=true`: every parameter set the fault applies to in this cluster now (the web UI offers these). */
  targets?: FaultParams[];
}

function summary(fault: FaultDefinition): FaultSummary {
  return {
    name: fault.name,
    models: fault.models,
    kubernetesReaction: fault.kubernetesReaction,
    lasting: fault.heal !== undefined,
    params: fault.params,
  };
}

function isParamValue(value: unknown): value is FaultParamValue {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

function parseFaultRequest(body: Record<string, unknown>): FaultRequest {
  if (typeof body.fault !== "string" || body.fault === "") throw badRequest("fault: the name of a fault is required");
  const params = body.params ?? {};
  if (!isPlainObject(params)) throw badRequest("params: must be an object of parameter values");
  for (const [key, value] of Object.entries(params)) {
    if (!isParamValue(value)) throw badRequest(`params.${key}: must be a string, a number or a boolean`);
  }
  if (body.heal !== undefined && typeof body.heal !== "boolean") throw badRequest("heal: must be true or false");
  return { fault: body.fault, params: params as FaultParams, heal: body.heal === true };
}

function unknownFault(name: string): ApiError {
  return new ApiError(
    "NotFound",
    `faults.${faultsGroup} "${name}" not found; known faults: ${[...faultCatalogue.keys()].join(", ")}`,
    { name, group: faultsGroup, kind: "faults" },
  );
}

async function apply(cluster: Cluster, request: FaultRequest): Promise<void> {
  const fault = faultCatalogue.get(request.fault);
  if (fault === undefined) throw unknownFault(request.fault);
  if (request.heal && fault.heal === undefined) {
    throw badRequest(`fault ${fault.name} is not lasting and has nothing to heal; inject it again instead`);
  }
  try {
    if (request.heal) await fault.heal?.(cluster, request.params);
    else await fault.inject(cluster, request.params);
  } catch (error) {
    throw badRequest(errorMessage(error));
  }
}

export function faultEndpoint(cluster: Cluster, logger: Logger): ServerExtension {
  return {
    handles: (pathname) => pathname === faultsPath,
    serve: async (request: IncomingMessage, response: ServerResponse, user: UserInfo | undefined) => {
      const method = request.method ?? "GET";
      if (user !== undefined && !isAdmin(user)) {
        const verb = method === "GET" ? "list" : "create";
        throw forbidden(
          faultsResource,
          "",
          `User "${user.name}" cannot ${verb} resource "faults" in API group "${faultsGroup}" at the cluster scope`,
        );
      }
      if (method === "GET") {
        const withTargets = new URL(request.url ?? "/", "http://apiserver").searchParams.get("targets") === "true";
        const faults = [...faultCatalogue.values()];
        sendJson(response, 200, {
          kind: "FaultList",
          apiVersion: `${faultsGroup}/${faultsVersion}`,
          items: withTargets
            ? await Promise.all(
                faults.map(async (fault) => ({ ...summary(fault), targets: await fault.targets(cluster) })),
              )
            : faults.map(summary),
        });
        return;
      }
      if (method !== "POST") {
        throw new ApiError("MethodNotAllowed", `the fault endpoint serves GET and POST, not ${method}`);
      }
      const faultRequest = parseFaultRequest(await readBodyObject(request));
      await apply(cluster, faultRequest);
      logger.info(faultRequest.heal ? "fault healed" : "fault injected", {
        fault: faultRequest.fault,
        params: faultRequest.params,
        user: user?.name ?? "",
      });
      sendJson(response, 201, {
        kind: "FaultInjection",
        apiVersion: `${faultsGroup}/${faultsVersion}`,
        ...faultRequest,
      });
    },
  };
}
