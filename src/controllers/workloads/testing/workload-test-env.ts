/**
 * The fixture the workload controller tests share: a memory store on a VirtualClock, one informer
 * factory, the controllers under test, and what stands in for the kubelet and the scheduler in
 * these tests — binding a pod to a node and reporting it Running and Ready, or finishing a
 * graceful deletion, exactly as those components would write it.
 */
import { newTestApi, type TestApi } from "../../../api/client/testing/test-api.ts";
import { SharedInformerFactory } from "../../../api/informer/shared-informer-factory.ts";
import type { Event, Pod } from "../../../api/objects.ts";
import { DEFAULT_TIMERS } from "../../../api/timers.ts";
import { formatRfc3339 } from "../../../runtime/clock.ts";
import type { Controller, ControllerContext } from "../../controller-context.ts";

export interface WorkloadTestEnv {
  api: TestApi;
  context: ControllerContext;
  runFor(durationMs: number): Promise<void>;
  /** What a scheduler and a kubelet would write once the pod's containers are up. */
  startPod(namespace: string, name: string, nodeName?: string): Promise<Pod>;
  /** What the kubelet writes once a terminating pod's containers and volumes are gone. */
  finishDeletion(namespace: string, name: string): Promise<void>;
  pods(namespace?: string): Promise<Pod[]>;
  podNames(namespace?: string): Promise<string[]>;
  /** `reason: message` of every Event, oldest first. */
  eventTexts(): Promise<string[]>;
  stop(): Promise<void>;
}

const defaultTestNode = "node-a";

export async function startWorkloadTestEnv(
  makeControllers: (context: ControllerContext) => Controller[],
  seed = 1,
): Promise<WorkloadTestEnv> {
  const api = newTestApi(seed);
  const informers = new SharedInformerFactory(api.client, api.clock, {
    resyncPeriodMs: 0,
    rng: api.rng,
    logger: api.logger,
  });
  const context: ControllerContext = {
    client: api.client,
    informers,
    clock: api.clock,
    rng: api.rng,
    logger: api.logger,
    timers: DEFAULT_TIMERS,
  };
  const controllers = makeControllers(context);
  for (const controller of controllers) controller.start();
  informers.start();
  await api.clock.advanceBy(0);

  const pods = async (namespace = "default") => (await api.client.pods.list({ namespace })).items;
  return {
    api,
    context,
    runFor: async (durationMs) => {
      await api.clock.runFor(durationMs);
    },
    startPod: (namespace, name, nodeName = defaultTestNode) => startPod(api, namespace, name, nodeName),
    finishDeletion: async (namespace, name) => {
      await api.client.pods.delete(namespace, name, { gracePeriodSeconds: 0 });
    },
    pods,
    podNames: async (namespace) => (await pods(namespace)).map((pod) => pod.metadata?.name ?? "").sort(),
    eventTexts: async () => eventTexts(await api.client.events.list()),
    stop: async () => {
      for (const controller of controllers) await controller.stop();
      informers.stop();
    },
  };
}

async function startPod(api: TestApi, namespace: string, name: string, nodeName: string): Promise<Pod> {
  await api.client.pods.mutate(namespace, name, (draft) => {
    if (draft.spec !== undefined && !draft.spec.nodeName) draft.spec.nodeName = nodeName;
  });
  const now = formatRfc3339(api.clock.now());
  return api.client.pods.mutate(
    namespace,
    name,
    (draft) => {
      draft.status = {
        ...draft.status,
        phase: "Running",
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }],
      };
    },
    { subresource: "status" },
  );
}

function eventTexts(list: { items: Event[] }): string[] {
  return [...list.items]
    .sort((a, b) => Number(a.metadata?.resourceVersion) - Number(b.metadata?.resourceVersion))
    .map((event) => `${event.reason}: ${event.message}`);
}
