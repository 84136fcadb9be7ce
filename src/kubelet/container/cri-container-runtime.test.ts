import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import type {
  ContainerConfig,
  ContainerExitHandler,
  ContainerStatus,
  ExecSyncResponse,
  PodSandboxConfig,
  PodSandboxStatus,
  RuntimeService,
} from "../../cri/runtime-service.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { ContainerMount } from "./container-mounts.ts";
import { CriContainerRuntime } from "./cri-container-runtime.ts";

/** Records the CRI calls; containers exit when the test says so. */
class RecordingRuntimeService implements RuntimeService {
  readonly calls: string[] = [];
  readonly sandboxes: PodSandboxConfig[] = [];
  readonly containers = new Map<string, ContainerConfig>();
  private handler: ContainerExitHandler | undefined;
  private next = 0;

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    this.sandboxes.push(config);
    this.calls.push(`runPodSandbox ${config.metadata.name}`);
    return "sandbox-1";
  }
  async stopPodSandbox(id: string): Promise<void> {
    this.calls.push(`stopPodSandbox ${id}`);
  }
  async removePodSandbox(id: string): Promise<void> {
    this.calls.push(`removePodSandbox ${id}`);
  }
  async listPodSandbox(): Promise<PodSandboxStatus[]> {
    return this.sandboxes.map((config) => ({
      id: "sandbox-1",
      metadata: config.metadata,
      hostname: config.hostname,
      logDirectory: config.logDirectory,
      createdAtMs: 0,
    }));
  }
  async createContainer(_sandbox: string, config: ContainerConfig): Promise<string> {
    const id = `c${++this.next}`;
    this.containers.set(id, config);
    this.calls.push(`createContainer ${config.metadata.name} ${config.metadata.attempt}`);
    return id;
  }
  async startContainer(id: string): Promise<void> {
    this.calls.push(`startContainer ${id}`);
  }
  async stopContainer(id: string, timeoutMs: number): Promise<void> {
    this.calls.push(`stopContainer ${id} ${timeoutMs}`);
    this.exit(id, 137);
  }
  async removeContainer(id: string): Promise<void> {
    this.calls.push(`removeContainer ${id}`);
  }
  async containerStatus(id: string): Promise<ContainerStatus> {
    throw new Error(`not used: ${id}`);
  }
  async listContainers(): Promise<ContainerStatus[]> {
    return [];
  }
  async execSync(id: string, cmd: readonly string[]): Promise<ExecSyncResponse> {
    this.calls.push(`execSync ${id} ${cmd.join(" ")}`);
    return { stdout: Buffer.from("out\n"), stderr: Buffer.from("err\n"), exitCode: 2 };
  }
  onContainerExit(handler: ContainerExitHandler): () => void {
    this.handler = handler;
    return () => {
      this.handler = undefined;
    };
  }
  exit(id: string, exitCode: number): void {
    const config = this.containers.get(id);
    this.handler?.({
      id,
      podSandboxId: "sandbox-1",
      name: config?.metadata.name ?? "",
      attempt: config?.metadata.attempt ?? 0,
      state: "CONTAINER_EXITED",
      image: config?.image ?? "",
      createdAtMs: 0,
      startedAtMs: 0,
      finishedAtMs: 5000,
      exitCode,
      reason: exitCode === 0 ? "Completed" : "Error",
      message: "",
      logPath: "",
    });
  }
}

/** Holds each container's start until the test releases it, as a slow start on a loaded node. */
class HeldStartRuntimeService extends RecordingRuntimeService {
  private release: (() => void) | undefined;
  private heldResolve: (() => void) | undefined;
  /** Resolves once a start is being held. */
  readonly held = new Promise<void>((resolve) => {
    this.heldResolve = resolve;
  });

  override async startContainer(id: string): Promise<void> {
    this.calls.push(`startContainer ${id} (held)`);
    this.heldResolve?.();
    await new Promise<void>((resolve) => {
      this.release = resolve;
    });
    this.calls.push(`startContainer ${id} (done)`);
  }

  releaseStart(): void {
    this.release?.();
  }
}

const pod: Pod = {
  metadata: { name: "web", namespace: "shop", uid: "uid-1" },
  spec: {
    hostname: "web-host",
    containers: [
      {
        name: "main",
        image: "busybox",
        command: ["sh", "-c"],
        args: ["echo hi"],
        workingDir: "/work",
        env: [
          { name: "A", value: "1" },
          { name: "FROM_SECRET", valueFrom: { secretKeyRef: { name: "s", key: "k" } } },
        ],
      },
    ],
  },
};
const container = pod.spec?.containers[0] ?? { name: "" };

function mount(propagation: ContainerMount["propagation"], readOnly: boolean): ContainerMount {
  return {
    volumeName: "data",
    containerPath: "/data",
    hostPath: "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~empty-dir/data",
    readOnly,
    followsHostMounts: propagation !== "None",
    propagation,
    mountIdAtStart: undefined,
  };
}

describe("CriContainerRuntime", () => {
  it("runs one sandbox per pod and creates each container with its command, mounts, devices and log path", async () => {
    const service = new RecordingRuntimeService();
    const runtime = new CriContainerRuntime({ service, clock: new VirtualClock(), podLogsDir: "/var/log/pods" });
    const instance = await runtime.start(
      pod,
      container,
      0,
      [mount("HostToContainer", true)],
      [{ volumeName: "block", devicePath: "/dev/xvda", hostPath: "/var/lib/kubelet/pods/uid-1/volumeDevices/x/block" }],
    );
    assert.equal(instance.id, "containerd://c1");
    assert.equal(instance.state, "running");
    assert.deepEqual(service.sandboxes, [
      {
        metadata: { name: "web", namespace: "shop", uid: "uid-1", attempt: 0 },
        hostname: "web-host",
        logDirectory: "/var/log/pods/shop_web_uid-1",
      },
    ]);
    assert.deepEqual(service.containers.get("c1"), {
      metadata: { name: "main", attempt: 0 },
      image: "busybox",
      command: ["sh", "-c"],
      args: ["echo hi"],
      workingDir: "/work",
      envs: [{ key: "A", value: "1" }],
      mounts: [
        {
          containerPath: "/data",
          hostPath: "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~empty-dir/data",
          readonly: true,
          propagation: "PROPAGATION_HOST_TO_CONTAINER",
        },
      ],
      devices: [{ containerPath: "/dev/xvda", hostPath: "/var/lib/kubelet/pods/uid-1/volumeDevices/x/block" }],
      logPath: "main/0.log",
    });
  });

  it("hears exits, keeps one previous instance, removes older ones and the sandbox with the pod", async () => {
    const service = new RecordingRuntimeService();
    const runtime = new CriContainerRuntime({ service, clock: new VirtualClock(), podLogsDir: "/var/log/pods" });
    const exits: string[] = [];
    runtime.subscribe({ containerExited: (instance) => exits.push(`${instance.id} ${instance.exitCode}`) });
    await runtime.start(pod, container, 0, []);
    service.exit("c1", 3);
    assert.deepEqual(exits, ["containerd://c1 3"]);
    assert.equal(runtime.isPodRunning("uid-1"), false);
    await runtime.start(pod, container, 1, []);
    assert.equal(runtime.previous("uid-1", "main")?.exitCode, 3);
    await runtime.stop("uid-1", "main", 30_000);
    await runtime.start(pod, container, 2, []);
    assert.deepEqual(
      [runtime.current("uid-1", "main")?.id, runtime.previous("uid-1", "main")?.id],
      ["containerd://c3", "containerd://c2"],
    );
    assert.ok(service.calls.includes("removeContainer c1"), "the instance before the previous one is removed");
    assert.ok(service.calls.includes("stopContainer c2 30000"));
    service.exit("c3", 0);
    await runtime.removePod("uid-1");
    assert.equal(service.calls.at(-1), "removePodSandbox sandbox-1");
    assert.deepEqual(runtime.podUIDs(), []);
  });

  it("adopts what the runtime already runs: current and previous instance by attempt, exits heard, the rest removed", async () => {
    const service = new RecordingRuntimeService();
    const status = (id: string, attempt: number, state: ContainerStatus["state"], exitCode = 0): ContainerStatus => ({
      id,
      podSandboxId: "sandbox-1",
      name: "main",
      attempt,
      state,
      image: "busybox",
      createdAtMs: 1000 * attempt,
      startedAtMs: 1000 * attempt + 10,
      finishedAtMs: state === "CONTAINER_EXITED" ? 1000 * attempt + 500 : 0,
      exitCode,
      reason: state === "CONTAINER_EXITED" ? "Error" : "",
      message: "",
      logPath: `/var/log/pods/shop_web_uid-1/main/${attempt}.log`,
      mounts: [{ containerPath: "/data", hostPath: "/node/data", readonly: true, propagation: "PROPAGATION_PRIVATE" }],
    });
    service.sandboxes.push({
      metadata: { name: "web", namespace: "shop", uid: "uid-1", attempt: 0 },
      hostname: "web",
      logDirectory: "/var/log/pods/shop_web_uid-1",
    });
    service.listContainers = async () => [
      status("old", 0, "CONTAINER_EXITED", 1),
      status("running", 2, "CONTAINER_RUNNING"),
      status("never-started", 3, "CONTAINER_CREATED"),
      status("before", 1, "CONTAINER_EXITED", 2),
    ];
    const runtime = new CriContainerRuntime({ service, clock: new VirtualClock(), podLogsDir: "/var/log/pods" });
    assert.equal(await runtime.adoptExisting(), 1);
    const current = runtime.current("uid-1", "main");
    assert.equal(current?.id, "containerd://running");
    assert.equal(current?.state, "running");
    assert.equal(current?.attempt, 2, "the restart count the pod reports stays as it was");
    assert.equal(current?.startedAtMs, 2010);
    assert.equal(current?.podKey, "shop/web");
    assert.deepEqual(
      current?.mounts.map((m) => [m.containerPath, m.readOnly, m.propagation]),
      [["/data", true, "None"]],
    );
    assert.equal(runtime.previous("uid-1", "main")?.exitCode, 2);
    assert.ok(service.calls.includes("removeContainer never-started"));
    assert.ok(service.calls.includes("removeContainer old"));
    assert.equal(runtime.isPodRunning("uid-1"), true);
    const exits: string[] = [];
    runtime.subscribe({ containerExited: (instance) => exits.push(`${instance.id} ${instance.exitCode}`) });
    service.exit("running", 137);
    assert.deepEqual(exits, ["containerd://running 137"]);
  });

  it("runs exec probe commands with ExecSync, stdout then stderr", async () => {
    const service = new RecordingRuntimeService();
    const runtime = new CriContainerRuntime({ service, clock: new VirtualClock(), podLogsDir: "/var/log/pods" });
    const instance = await runtime.start(pod, container, 0, []);
    assert.deepEqual(await runtime.exec(instance, ["ls", "/data"], 1000), { exitCode: 2, output: "out\nerr\n" });
    assert.equal(service.calls.at(-1), "execSync c1 ls /data");
  });

  it("a shutdown during a container's start waits for it, then stops and removes it; no start begins after", async () => {
    const service = new HeldStartRuntimeService();
    const runtime = new CriContainerRuntime({ service, clock: new VirtualClock(), podLogsDir: "/var/log/pods" });
    const starting = runtime.start(pod, container, 0, []);
    await service.held;
    const shutdown = runtime.shutdown(30_000);
    await assert.rejects(
      runtime.start({ ...pod, metadata: { name: "late", namespace: "shop", uid: "uid-2" } }, container, 0, []),
      { message: "the node is shutting down; not starting container main of pod shop/late" },
    );
    service.releaseStart();
    assert.equal((await starting).id, "containerd://c1");
    await shutdown;
    assert.deepEqual(service.calls, [
      "runPodSandbox web",
      "createContainer main 0",
      "startContainer c1 (held)",
      "startContainer c1 (done)",
      "stopContainer c1 30000",
      "removePodSandbox sandbox-1",
    ]);
  });
});
