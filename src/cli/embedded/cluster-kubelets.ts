/**
 * The API server's way to the kubelets of the in-process cluster (`kvol up`, `kvol server`): a
 * node of the cluster is reached directly, as kube-apiserver reaches a kubelet on its port; a node
 * joined from elsewhere (`kvol node`) is not reachable this way.
 */
import { kubeletStatsSummaryPath, kubeletVolumeManagerDebugPath } from "../../api/debug/debug-state.ts";
import { ApiError, badRequest } from "../../api/errors.ts";
import type { KubeletConnection, KubeletConnections } from "../../apiserver/kubelet-connection.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { ContainerLogUnavailable, readContainerLog } from "../../kubelet/container/container-log-reader.ts";
import { SimContainerRuntime } from "../../kubelet/container/sim-container-runtime.ts";
import type { Kubelet } from "../../kubelet/kubelet.ts";

/** The node's kubelet answers its JSON paths as its own server would (kubelet-server.ts). */
async function kubeletDebugState(kubelet: Kubelet | undefined, nodeName: string, path: string): Promise<object> {
  if (path !== kubeletVolumeManagerDebugPath && path !== kubeletStatsSummaryPath) {
    throw new ApiError("NotFound", `the kubelet serves nothing at ${path}`);
  }
  if (kubelet === undefined) {
    throw new ApiError(
      "ServiceUnavailable",
      `the kubelet of node "${nodeName}" is not running, so its state cannot be read`,
    );
  }
  return path === kubeletStatsSummaryPath ? kubelet.statsSummary() : kubelet.debugState();
}

/** The node's kubelet's `/metrics`, as its own server answers it. */
async function kubeletMetrics(
  kubelet: Kubelet | undefined,
  nodeName: string,
): Promise<{ contentType: string; text: string }> {
  if (kubelet === undefined) {
    throw new ApiError(
      "ServiceUnavailable",
      `the kubelet of node "${nodeName}" is not running, so its metrics cannot be read`,
    );
  }
  return { contentType: kubelet.metrics.contentType, text: await kubelet.metrics.exposition() };
}

export function clusterKubelets(cluster: Cluster): KubeletConnections {
  return {
    kubeletOf(nodeName: string): KubeletConnection | undefined {
      if (!cluster.kubeletNodeNames().includes(nodeName)) return undefined;
      return {
        debugState: (path) => kubeletDebugState(cluster.kubelet(nodeName), nodeName, path),
        metrics: () => kubeletMetrics(cluster.kubelet(nodeName), nodeName),
        async containerLog(pod, container, previous) {
          const kubelet = cluster.kubelet(nodeName);
          if (kubelet === undefined) {
            throw badRequest(`the kubelet of node "${nodeName}" is not running, so container logs cannot be read`);
          }
          if (!(kubelet.runtime instanceof SimContainerRuntime)) {
            throw badRequest(
              `the logs of node "${nodeName}"'s real containers are in its /var/log/pods, not served here`,
            );
          }
          try {
            return await readContainerLog(kubelet.runtime, pod, container, previous);
          } catch (error) {
            if (error instanceof ContainerLogUnavailable) throw badRequest(error.message);
            throw error;
          }
        },
      };
    },
  };
}
