/**
 * The client side of kvol's administrator endpoints next to the Kubernetes API (`kvol fault`,
 * `kvol speed`): reached at the server of the chosen kubeconfig context with its credentials, like
 * any other request. A cluster that answers 404 for the whole group is not a `kvol up` cluster
 * (a real Kubernetes cluster, or `kubectl proxy` in front of one), and the error says so.
 */
import { ApiError } from "../../api/errors.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { speedPath } from "../embedded/speed-endpoint.ts";
import type { ApiRequest, KubeApi } from "./kube-api.ts";

/** Sends a request to a kvol endpoint; a 404 that does not come from the endpoint itself says why. */
export async function kvolEndpointJson<T>(api: KubeApi, request: ApiRequest): Promise<T> {
  try {
    return await api.json<T>(request);
  } catch (error) {
    // kvol's endpoints answer their own 404s with details naming the kvol.io group.
    if (error instanceof ApiError && error.reason === "NotFound" && error.details.group !== "kvol.io") {
      throw new Error(
        `the cluster at ${api.access.server} has no ${request.path} endpoint: it is not a cluster \`kvol up\` runs (choose one with --kubeconfig or --context)`,
      );
    }
    throw error;
  }
}

/**
 * The cluster clock's time, for ages counted as the cluster counts them: a `kvol up` run at a
 * speed above 1 leaves its clock ahead of this machine's. Any other cluster (no speed endpoint), or
 * one that cannot be asked, is taken to share this machine's clock: `localNowMs`.
 */
export async function clusterNowMs(api: KubeApi, localNowMs: number): Promise<number> {
  try {
    const answer = await api.json<{ time?: unknown }>({ method: "GET", path: speedPath });
    const timeMs = typeof answer.time === "string" ? parseRfc3339(answer.time) : Number.NaN;
    return Number.isFinite(timeMs) ? timeMs : localNowMs;
  } catch (error) {
    if (error instanceof ApiError) return localNowMs;
    throw new Error(`cannot read the cluster's clock: ${errorMessage(error)}`);
  }
}
