/** Faults of the control plane: kube-controller-manager restarting, and a slow API server. */
import type { FaultDefinition } from "./fault.ts";
import { checkFaultParams, FaultArgs } from "./fault-args.ts";
import { nodeMonitorGracePeriod } from "./reaction-timings.ts";

/** The latencies random exploration tries: noticeable, and one that outlasts a Lease renewal period. */
const exploredApiLatencies = ["2s", "15s"];

export const controllerManagerRestart: FaultDefinition = {
  name: "controller-manager-restart",
  models:
    "kube-controller-manager restarts (an upgrade, a leader-election loss, an OOM kill): every controller it runs " +
    "stops at once and fresh instances start with empty caches; the scheduler and the CSI sidecars keep running.",
  kubernetesReaction:
    "The new attach/detach controller waits for its informers, then rebuilds its actual state from " +
    "node.status.volumesAttached (marking each volume attached) and from VolumeAttachment objects (volumes only " +
    "found there are Uncertain), and its desired state from the pods: attached volumes stay attached, nothing is " +
    "attached twice, and volumes whose pods went away meanwhile are detached. The PV controller and the workload " +
    "controllers resync from the API; operations already sent to a cloud provider still complete.",
  params: [],
  async inject(cluster, params) {
    checkFaultParams(controllerManagerRestart, params);
    cluster.restartControllerManager();
  },
  targets: async () => [{}],
};

export const apiLatency: FaultDefinition = {
  name: "api-latency",
  models:
    "The API server answers slowly (an overloaded etcd, a saturated apiserver): every request of the controllers, " +
    "the scheduler, the CSI sidecars and the kubelets takes `delay` longer; watches already open keep flowing.",
  kubernetesReaction:
    "Nothing fails; everything happens later — binding, attach (the VolumeAttachment write and its status), mount " +
    "(the kubelet waits for the volume in node.status.volumesAttached), pod status. A delay near " +
    `node-monitor-grace-period (${nodeMonitorGracePeriod}) delays Lease renewals enough for nodes to go Ready=Unknown.`,
  healing: "Requests are answered at once again; those already waiting finish their delay.",
  params: [
    {
      name: "delay",
      type: "duration",
      required: true,
      description: "How much longer every request takes.",
    },
  ],
  async inject(cluster, params) {
    const args = new FaultArgs(apiLatency, params);
    cluster.apiFaults.setLatency(args.durationMs("delay"));
  },
  async heal(cluster, params) {
    checkFaultParams(apiLatency, params);
    cluster.apiFaults.setLatency(0);
  },
  targets: async () => exploredApiLatencies.map((delay) => ({ delay })),
};
