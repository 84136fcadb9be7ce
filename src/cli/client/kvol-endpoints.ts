/**
 * The client side of kvol's administrator endpoints next to the Kubernetes API (`kvol fault`,
 * `kvol speed`): reached at the server of the chosen kubeconfig context with its credentials, like
 * any other request. A cluster that answers 404 for the whole group is not a `kvol up` cluster
 * (a real Kubernetes cluster, or `kubectl proxy` in front of one), and the error says so.
 */
import { ApiError } from "../../api/errors.ts";
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
