import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ContainerStatus, Pod } from "kubernetes-types/core/v1.js";
import type { ContainerInstance } from "../container/sim-container-runtime.ts";
import { generatePodStatus, podPhase } from "./generate-pod-status.ts";

function pod(restartPolicy: "Always" | "OnFailure" | "Never"): Pod {
  return { metadata: { name: "p" }, spec: { restartPolicy, containers: [{ name: "a" }, { name: "b" }] } };
}

const waiting: ContainerStatus = {
  name: "a",
  image: "",
  imageID: "",
  ready: false,
  restartCount: 0,
  state: { waiting: { reason: "ContainerCreating" } },
};
const running: ContainerStatus = { ...waiting, state: { running: { startedAt: "2026-01-01T00:00:00Z" } } };
const exited = (exitCode: number): ContainerStatus => ({ ...waiting, state: { terminated: { exitCode } } });

describe("podPhase", () => {
  it("is Pending while a container has not started, Running once all started and one runs", () => {
    assert.equal(podPhase(pod("Always"), [waiting, running], false), "Pending");
    assert.equal(podPhase(pod("Always"), [running, exited(1)], false), "Running");
  });

  it("follows the restart policy once every container has exited", () => {
    assert.equal(podPhase(pod("Always"), [exited(0), exited(0)], false), "Running");
    assert.equal(podPhase(pod("OnFailure"), [exited(0), exited(0)], false), "Succeeded");
    assert.equal(podPhase(pod("OnFailure"), [exited(0), exited(1)], false), "Running");
    assert.equal(podPhase(pod("Never"), [exited(0), exited(1)], false), "Failed");
  });

  it("is terminal for a terminated pod whatever the policy, and Failed if a container never ran", () => {
    assert.equal(podPhase(pod("Always"), [exited(0), exited(0)], true), "Succeeded");
    assert.equal(podPhase(pod("Always"), [exited(0), exited(137)], true), "Failed");
    assert.equal(podPhase(pod("Always"), [waiting, waiting], true), "Failed");
  });
});

describe("generatePodStatus", () => {
  const busybox: Pod = { metadata: { name: "p" }, spec: { containers: [{ name: "app", image: "busybox:1.36" }] } };
  const instance: ContainerInstance = {
    id: "containerd://0123",
    podUID: "uid-1",
    podKey: "default/p",
    name: "app",
    image: "busybox:1.36",
    attempt: 0,
    startedAtMs: 0,
    mounts: [],
    logPath: "/var/log/pods/default_p_uid-1/app/0.log",
    state: "running",
  };
  const statusOf = (nowMs: number) =>
    generatePodStatus({
      pod: busybox,
      containers: new Map([["app", { current: instance, ready: true }]]),
      podIsTerminal: false,
      hostIP: "10.0.0.1",
      nowMs,
    }).containerStatuses[0];

  it("reports a running container's image digest as imageID, the same on every status", () => {
    const digest = "busybox:1.36@sha256:ab512471e34f10e894cfa69eec441e1412a1c418f681cdb04b15c219c8b1dd67";
    assert.equal(statusOf(0)?.imageID, digest);
    assert.equal(statusOf(1_000)?.imageID, digest);
    assert.equal(statusOf(1_000)?.containerID, "containerd://0123");
  });

  it("gives each image its own imageID, whatever image was seen before", () => {
    const nginx: Pod = { metadata: { name: "web" }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } };
    const nginxStatus = () =>
      generatePodStatus({
        pod: nginx,
        containers: new Map([["web", { current: { ...instance, name: "web", image: "nginx:1.27" }, ready: true }]]),
        podIsTerminal: false,
        hostIP: "10.0.0.1",
        nowMs: 0,
      }).containerStatuses[0];
    const nginxDigest = "nginx:1.27@sha256:cd4495bb73de9b01bf009710b80ecf4be2d298db47492f4e9e7d0b04981c4614";
    const busyboxDigest = "busybox:1.36@sha256:ab512471e34f10e894cfa69eec441e1412a1c418f681cdb04b15c219c8b1dd67";
    assert.equal(statusOf(0)?.imageID, busyboxDigest);
    assert.equal(nginxStatus()?.imageID, nginxDigest);
    assert.equal(statusOf(1_000)?.imageID, busyboxDigest);
    assert.equal(nginxStatus()?.imageID, nginxDigest);
  });

  it("says which containers are not ready in ContainersReady and Ready", () => {
    const status = generatePodStatus({
      pod: { metadata: { name: "p" }, spec: { containers: [{ name: "app" }, { name: "sidecar" }] } },
      containers: new Map([["app", { current: instance, ready: true }]]),
      podIsTerminal: false,
      hostIP: "10.0.0.1",
      nowMs: 0,
    });
    const notReady = {
      status: "False",
      reason: "ContainersNotReady",
      message: "containers with unready status: [sidecar]",
    };
    assert.deepEqual(status.conditions, [
      { type: "Initialized", status: "True" },
      { type: "ContainersReady", ...notReady },
      { type: "Ready", ...notReady },
    ]);
  });
});
