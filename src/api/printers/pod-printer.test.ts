import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { Pod } from "../objects.ts";
import { podPrinter, podStatusText } from "./pod-printer.ts";

const now = parseRfc3339("2026-11-21T12:10:00Z");
const created = "2026-11-21T12:00:00Z";

function pod(status: Pod["status"], extra: Partial<Pod> = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web-0", namespace: "default", creationTimestamp: created, ...extra.metadata },
    spec: { containers: [{ name: "app", image: "busybox" }], nodeName: "node-1", ...extra.spec },
    status,
  };
}

const cellsOf = (p: Pod) => podPrinter.row(p, now).cells;

describe("pod printer", () => {
  it("shows a pod waiting for its volume as 0/1 ContainerCreating", () => {
    const p = pod({
      phase: "Pending",
      containerStatuses: [
        {
          name: "app",
          image: "busybox",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: "ContainerCreating" } },
        },
      ],
    });
    assert.deepEqual(cellsOf(p).slice(0, 5), ["web-0", "0/1", "ContainerCreating", "0", "10m"]);
  });

  it("shows a running ready pod with its IP and node in the wide columns", () => {
    const p = pod({
      phase: "Running",
      podIP: "10.244.1.5",
      podIPs: [{ ip: "10.244.1.5" }],
      containerStatuses: [
        {
          name: "app",
          image: "busybox",
          imageID: "",
          ready: true,
          restartCount: 0,
          state: { running: { startedAt: created } },
        },
      ],
    });
    assert.deepEqual(cellsOf(p), ["web-0", "1/1", "Running", "0", "10m", "10.244.1.5", "node-1", "<none>", "<none>"]);
  });

  it("shows a crash-looping container with its restarts and when it last stopped", () => {
    const p = pod({
      phase: "Running",
      containerStatuses: [
        {
          name: "app",
          image: "busybox",
          imageID: "",
          ready: false,
          restartCount: 4,
          state: { waiting: { reason: "CrashLoopBackOff" } },
          lastState: { terminated: { exitCode: 1, finishedAt: "2026-11-21T12:08:00Z" } },
        },
      ],
    });
    const cells = cellsOf(p);
    assert.equal(cells[2], "CrashLoopBackOff");
    assert.equal(cells[3], "4 (2m ago)");
  });

  it("shows Terminating for a deleted pod that is not finished, and the phase once it is", () => {
    const deleting = pod({ phase: "Running" }, { metadata: { name: "web-0", deletionTimestamp: created } });
    assert.equal(podStatusText(deleting), "Terminating");
    const done = pod({ phase: "Succeeded" }, { metadata: { name: "web-0", deletionTimestamp: created } });
    assert.equal(podStatusText(done), "Succeeded");
    const lost = pod(
      { phase: "Running", reason: "NodeLost" },
      { metadata: { name: "web-0", deletionTimestamp: created } },
    );
    assert.equal(podStatusText(lost), "Unknown");
  });

  it("shows the init step a pod is on", () => {
    const spec = {
      initContainers: [{ name: "setup", image: "busybox" }],
      containers: [{ name: "app", image: "busybox" }],
    };
    const waiting = pod(
      {
        phase: "Pending",
        initContainerStatuses: [
          {
            name: "setup",
            image: "busybox",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: "PodInitializing" } },
          },
        ],
      },
      { spec },
    );
    assert.equal(podStatusText(waiting), "Init:0/1");
    const failed = pod(
      {
        phase: "Pending",
        initContainerStatuses: [
          {
            name: "setup",
            image: "busybox",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { terminated: { exitCode: 3 } },
          },
        ],
      },
      { spec },
    );
    assert.equal(podStatusText(failed), "Init:ExitCode:3");
  });

  it("counts a started sidecar among the containers and marks completed pods", () => {
    const p = pod(
      {
        phase: "Running",
        initContainerStatuses: [
          {
            name: "proxy",
            image: "envoy",
            imageID: "",
            ready: true,
            started: true,
            restartCount: 0,
            state: { running: {} },
          },
        ],
        containerStatuses: [
          { name: "app", image: "busybox", imageID: "", ready: true, restartCount: 0, state: { running: {} } },
        ],
      },
      {
        spec: {
          initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }],
          containers: [{ name: "app" }],
        },
      },
    );
    assert.deepEqual(cellsOf(p).slice(1, 3), ["2/2", "Running"]);
    const row = podPrinter.row(pod({ phase: "Succeeded" }), now);
    assert.equal(row.conditions?.[0]?.reason, "Succeeded");
  });

  it("has kubectl's column names, the wide ones at priority 1", () => {
    const names = podPrinter.columns.map((c) => `${c.name}:${c.priority}`);
    assert.deepEqual(names, [
      "Name:0",
      "Ready:0",
      "Status:0",
      "Restarts:0",
      "Age:0",
      "IP:1",
      "Node:1",
      "Nominated Node:1",
      "Readiness Gates:1",
    ]);
  });
});
