import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { Deployment, Event, Node } from "../objects.ts";
import { printerFor } from "./printers.ts";

const now = parseRfc3339("2026-11-21T12:00:00Z");

describe("printerFor", () => {
  it("prints nodes with status, roles and kubelet version", () => {
    const node: Node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: "node-1",
        creationTimestamp: "2026-11-21T11:00:00Z",
        labels: { "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/control-plane": "" },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: "Ready", status: "False" }],
        addresses: [{ type: "InternalIP", address: "10.0.0.1" }],
        nodeInfo: {
          kubeletVersion: "v1.31.0-kvol",
          architecture: "",
          bootID: "",
          containerRuntimeVersion: "",
          kernelVersion: "",
          kubeProxyVersion: "",
          machineID: "",
          operatingSystem: "linux",
          osImage: "",
          systemUUID: "",
        },
      },
    };
    assert.deepEqual(printerFor("Node").row(node, now).cells, [
      "node-1",
      "NotReady,SchedulingDisabled",
      "control-plane,worker",
      "60m",
      "v1.31.0-kvol",
      "10.0.0.1",
      "<none>",
      "<unknown>",
      "<unknown>",
      "<unknown>",
    ]);
  });

  it("prints an event as LAST SEEN, TYPE, REASON, OBJECT, MESSAGE", () => {
    const event: Event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: "web-0.1", namespace: "default" },
      involvedObject: { kind: "Pod", name: "web-0", namespace: "default" },
      reason: "FailedMount",
      type: "Warning",
      message: 'MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32\n',
      source: { component: "kubelet", host: "node1" },
      firstTimestamp: "2026-11-21T11:50:00Z",
      lastTimestamp: "2026-11-21T11:58:00Z",
      count: 3,
    };
    const cells = printerFor("Event").row(event, now).cells;
    assert.deepEqual(cells.slice(0, 4), ["2m", "Warning", "FailedMount", "pod/web-0"]);
    assert.equal(cells[6], 'MountVolume.SetUp failed for volume "nfs211" : mount failed: exit status 32');
    assert.deepEqual(cells.slice(5, 6), ["kubelet, node1"]);
    assert.deepEqual(cells.slice(7, 9), ["10m", 3]);
  });

  it("prints deployments with ready, up-to-date, available and selector", () => {
    const deployment: Deployment = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", creationTimestamp: "2026-11-21T11:55:00Z" },
      spec: {
        replicas: 2,
        selector: {
          matchLabels: { app: "web" },
          matchExpressions: [{ key: "tier", operator: "In", values: ["b", "a"] }],
        },
        template: {
          spec: {
            containers: [
              { name: "app", image: "nginx" },
              { name: "log", image: "busybox" },
            ],
          },
        },
      },
      status: { readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 },
    };
    assert.deepEqual(printerFor("Deployment").row(deployment, now).cells, [
      "web",
      "1/2",
      2,
      1,
      "5m",
      "app,log",
      "nginx,busybox",
      "app=web,tier in (a,b)",
    ]);
  });

  it("gives a kind without a printer NAME and AGE", () => {
    const printer = printerFor("Widget");
    assert.deepEqual(
      printer.columns.map((c) => c.name),
      ["Name", "Age"],
    );
    assert.deepEqual(printer.row({ metadata: { name: "w", creationTimestamp: "2026-11-21T11:59:30Z" } }, now).cells, [
      "w",
      "30s",
    ]);
  });

  it("gives every row as many cells as its printer has columns", () => {
    for (const kind of [
      "Namespace",
      "ConfigMap",
      "Secret",
      "CSIDriver",
      "CSINode",
      "Lease",
      "StatefulSet",
      "ReplicaSet",
    ]) {
      const printer = printerFor(kind);
      const minimal = { metadata: { name: "x" }, spec: { drivers: [], template: {} } };
      assert.equal(printer.row(minimal, now).cells.length, printer.columns.length, kind);
    }
  });
});
