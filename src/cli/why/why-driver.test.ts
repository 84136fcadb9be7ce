/**
 * `kvol why` on a pod whose CSI driver's node plugin is not registered on its node: the attacher
 * finds no driver in the node's CSINode, and for a driver without attach the kubelet finds none in
 * its list of registered drivers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { whyReport } from "../why-command.ts";
import { atScenarioTextTime } from "./testing/scenario-api.ts";
import { reportText } from "./why-report.ts";

/** A pod on node-a using a mock.csi.kvol.io claim, the driver's node plugin gone from node-a. */
function scenario(driver: string): string {
  return `
name: a CSI driver not registered on the pod's node
seed: 3
until: 3m
cluster:
  nodes: [{ name: node-a }]
  csiDrivers: [${driver}]
  storageClasses:
    - metadata: { name: mock }
      provisioner: mock.csi.kvol.io
      volumeBindingMode: Immediate
timeline:
  - at: 0s
    unregisterCsiDriver: { node: node-a, driver: mock.csi.kvol.io }
  - at: 0s
    apply: |
      apiVersion: v1
      kind: PersistentVolumeClaim
      metadata: { name: data }
      spec: { accessModes: [ReadWriteOnce], storageClassName: mock, resources: { requests: { storage: 1Gi } } }
      ---
      apiVersion: v1
      kind: Pod
      metadata: { name: app }
      spec:
        nodeName: node-a
        containers: [{ name: app, image: busybox, volumeMounts: [{ name: data, mountPath: /data }] }]
        volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`;
}

async function whyApp(driver: string): Promise<string> {
  return atScenarioTextTime("driver-not-registered.yaml", scenario(driver), 60_000, async (api, cluster) => {
    const { report, nowMs } = await whyReport(api, "Pod", "default", "app", cluster.clock.now());
    return reportText(report, nowMs);
  });
}

function assertLines(text: string, expected: readonly (string | RegExp)[]): void {
  for (const line of expected) {
    if (typeof line === "string") assert.ok(text.includes(line), `expected ${JSON.stringify(line)} in:\n${text}`);
    else assert.match(text, line);
  }
}

describe("kvol why: CSI driver not registered on the node", () => {
  it("an attachable driver: the attach fails on the node's CSINode, and the remedy is the node plugin", async () => {
    const text = await whyApp("{ name: mock.csi.kvol.io }");
    assertLines(text, [
      "pod default/app: Pending, ContainerCreating on node node-a",
      /pv pvc-\S+: not attached to node node-a: attach failing: .*CSINode node-a does not contain driver mock\.csi\.kvol\.io/,
      "node node-a: CSI driver mock.csi.kvol.io is not registered with the kubelet on node node-a",
      "Start (or fix) mock.csi.kvol.io's node plugin on node node-a: its node-driver-registrar registers it with the kubelet.",
      "kubectl get csinode node-a -o yaml",
    ]);
  });

  it("a driver without attach: the kubelet's mount fails, driver name not found in the list of registered CSI drivers", async () => {
    const text = await whyApp("{ name: mock.csi.kvol.io, options: { capabilities: { publishUnpublish: false } } }");
    assertLines(text, [
      "pod default/app: Pending, ContainerCreating on node node-a",
      "driver name mock.csi.kvol.io not found in the list of registered CSI drivers",
      /pv pvc-\S+: not mounted on node node-a: CSI driver mock\.csi\.kvol\.io is not registered with the kubelet on node node-a/,
      /kubelet: volume_mount failed \d+s ago; no retries permitted until/,
      "Start (or fix) mock.csi.kvol.io's node plugin on node node-a",
    ]);
  });
});
