/**
 * The fixture the node lifecycle tests share: a memory store on a VirtualClock, one informer
 * factory, the node lifecycle controller, the taint eviction controller and pod GC, hand-made nodes
 * and pods, and a stand-in for the kubelet's heartbeat — its Lease in `kube-node-lease` renewed
 * every `nodeLeaseRenewIntervalMs` (10 s) — that a test can stop to "power off" a node.
 */

import type { Taint, Toleration } from "kubernetes-types/core/v1.js";
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { isNotFound } from "../../../api/errors.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import { nodeLeaseNamespace } from "../../../api/namespaces.ts";
import type { Event, Node, Pod } from "../../../api/objects.ts";
import { DEFAULT_TIMERS } from "../../../api/timers.ts";
import { formatRfc3339, formatRfc3339Micro, type Timer } from "../../../runtime/clock.ts";
import type { Controller, ControllerContext } from "../../controller-context.ts";
import { NodeLifecycleController } from "../node-lifecycle-controller.ts";
import { PodGcController } from "../pod-gc.ts";
import { TaintEvictionController } from "../taint-eviction-controller.ts";

export const testNamespace = "shop";

interface RunningPodOptions {
  tolerations?: Toleration[];
  finalizers?: string[];
}

export interface NodeLifecycleTestEnv {
  api: TestApi;
  context: ControllerContext;
  /** Virtual time elapsed since the fixture started. */
  elapsedMs(): number;
  runFor(durationMs: number): Promise<void>;
  /** A Ready node whose kubelet heartbeat is running. */
  addNode(name: string): Promise<Node>;
  /** Stops the node's heartbeat: what powering it off looks like to the control plane. */
  powerOff(name: string): void;
  /** Restarts the heartbeat and posts Ready=True, as a kubelet coming back does. */
  powerOn(name: string): Promise<void>;
  /** The kubelet reports Ready with this status (heartbeat included). */
  postReady(name: string, status: "True" | "False"): Promise<void>;
  addTaint(nodeName: string, taint: Taint): Promise<void>;
  /** A pod on the node, Running and Ready as its kubelet reports it. */
  addRunningPod(name: string, nodeName: string, options?: RunningPodOptions): Promise<Pod>;
  node(name: string): Promise<Node>;
  /** The pod, or undefined once it is gone. */
  pod(name: string): Promise<Pod | undefined>;
  /** `reason: message` of every Event about `objectName`, oldest first. */
  eventsAbout(objectName: string): Promise<string[]>;
  stop(): Promise<void>;
}

export async function startNodeLifecycleTestEnv(): Promise<NodeLifecycleTestEnv> {
  const api = newTestApi();
  const { client, clock } = api;
  const startMs = clock.now();
  const informers = new SharedInformerFactory(client, clock, { resyncPeriodMs: 0, rng: api.rng, logger: api.logger });
  const context: ControllerContext = {
    client,
    informers,
    clock,
    rng: api.rng,
    logger: api.logger,
    timers: { ...DEFAULT_TIMERS },
  };
  const controllers: Controller[] = [
    new NodeLifecycleController(context),
    new TaintEvictionController(context),
    new PodGcController(context),
  ];
  for (const controller of controllers) controller.start();
  informers.start();
  const heartbeats = new Map<string, Timer>();

  const renewLease = async (name: string): Promise<void> => {
    const renewTime = formatRfc3339Micro(clock.now());
    try {
      await client.leases.mutate(nodeLeaseNamespace, name, (draft) => {
        draft.spec = { ...draft.spec, renewTime };
      });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await client.leases.create({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { namespace: nodeLeaseNamespace, name },
        spec: {
          holderIdentity: name,
          leaseDurationSeconds: DEFAULT_TIMERS.nodeLeaseDurationSeconds,
          renewTime,
        },
      });
    }
  };
  const startHeartbeat = (name: string) => {
    heartbeats.get(name)?.cancel();
    heartbeats.set(
      name,
      clock.every(DEFAULT_TIMERS.nodeLeaseRenewIntervalMs, () => renewLease(name)),
    );
  };

  const env: NodeLifecycleTestEnv = {
    api,
    context,
    elapsedMs: () => clock.now() - startMs,
    runFor: async (durationMs) => {
      await clock.advanceBy(durationMs);
    },
    addNode: async (name) => {
      const now = formatRfc3339(clock.now());
      const node = await client.nodes.create({
        apiVersion: "v1",
        kind: "Node",
        metadata: { name, labels: { "kubernetes.io/hostname": name } },
        spec: {},
        status: {
          conditions: [
            { type: "Ready", status: "True", reason: "KubeletReady", lastHeartbeatTime: now, lastTransitionTime: now },
          ],
        },
      });
      startHeartbeat(name);
      return node;
    },
    powerOff: (name) => {
      heartbeats.get(name)?.cancel();
      heartbeats.delete(name);
    },
    powerOn: async (name) => {
      startHeartbeat(name);
      await env.postReady(name, "True");
    },
    postReady: async (name, status) => {
      const now = formatRfc3339(clock.now());
      await client.nodes.mutate(
        "",
        name,
        (draft) => {
          const conditions = (draft.status?.conditions ?? []).filter((condition) => condition.type !== "Ready");
          const reason = status === "True" ? "KubeletReady" : "KubeletNotReady";
          conditions.push({ type: "Ready", status, reason, lastHeartbeatTime: now, lastTransitionTime: now });
          draft.status = { ...draft.status, conditions };
        },
        { subresource: "status" },
      );
    },
    addTaint: async (nodeName, taint) => {
      await client.nodes.mutate("", nodeName, (draft) => {
        draft.spec = { ...draft.spec, taints: [...(draft.spec?.taints ?? []), taint] };
      });
    },
    addRunningPod: async (name, nodeName, options = {}) => {
      await client.pods.create({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { namespace: testNamespace, name, ...(options.finalizers ? { finalizers: options.finalizers } : {}) },
        spec: {
          nodeName,
          containers: [{ name: "main", image: "busybox" }],
          ...(options.tolerations ? { tolerations: options.tolerations } : {}),
        },
      });
      const now = formatRfc3339(clock.now());
      return client.pods.mutate(
        testNamespace,
        name,
        (draft) => {
          draft.status = {
            phase: "Running",
            conditions: [
              { type: "PodScheduled", status: "True", lastTransitionTime: now },
              { type: "Ready", status: "True", lastTransitionTime: now },
            ],
          };
        },
        { subresource: "status" },
      );
    },
    node: (name) => client.nodes.get("", name),
    pod: async (name) => {
      try {
        return await client.pods.get(testNamespace, name);
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },
    eventsAbout: async (objectName) => {
      const events: Event[] = (await client.events.list()).items.filter(
        (event) => event.involvedObject.name === objectName,
      );
      events.sort((a, b) => (a.metadata.name ?? "").localeCompare(b.metadata.name ?? ""));
      return events.map((event) => `${event.reason}: ${event.message}`);
    },
    stop: async () => {
      for (const heartbeat of heartbeats.values()) heartbeat.cancel();
      await Promise.all(controllers.map((controller) => controller.stop()));
      informers.stop();
    },
  };
  return env;
}
