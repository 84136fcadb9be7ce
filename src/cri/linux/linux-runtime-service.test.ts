import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { inPrivateMountNamespace, requireOrSkip } from "../../host/linux/private-mount-namespace.ts";
import { isProcessAlive } from "../../host/linux/process-state.ts";
import { makeScratchDir, mountsUnder, removeScratchDir } from "../../host/linux/scratch-dir.ts";
import type { ContainerMount } from "../../kubelet/container/container-mounts.ts";
import { CriContainerRuntime } from "../../kubelet/container/cri-container-runtime.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { ImageStore } from "../images/image-store.ts";
import type { ContainerConfig, Mount, RuntimeService } from "../runtime-service.ts";
import { cgroupPids, namespaceInitPid } from "./container-cgroup.ts";
import { LinuxRuntimeService } from "./linux-runtime-service.ts";
import { probeLinuxRuntime } from "./runtime-requirements.ts";

inPrivateMountNamespace(import.meta.filename, "Linux container runtime", () => {
  let scratch = "";
  let runtime: RuntimeService | undefined;
  let cgroupRoot = "";
  let skipReason: string | undefined;

  before(async () => {
    scratch = await makeScratchDir("cri");
    const probe = await probeLinuxRuntime();
    if ("problems" in probe) {
      skipReason = probe.problems.join("; ");
      return;
    }
    cgroupRoot = join(probe.cgroup2Mount, `kvol-test-${process.pid}`);
    runtime = new LinuxRuntimeService({
      clock: new RealClock(),
      rng: new Rng(process.pid),
      images: new ImageStore(join(scratch, "images")),
      stateDir: join(scratch, "containers"),
      cgroupRoot,
      tools: probe.tools,
    });
  });
  after(async () => {
    if (cgroupRoot !== "") await removeCgroupTree(cgroupRoot);
    await removeScratchDir(scratch);
  });

  let podCount = 0;
  async function sandbox(service: RuntimeService, name: string): Promise<{ id: string; logDirectory: string }> {
    podCount += 1;
    const uid = `00000000-0000-0000-0000-${String(podCount).padStart(12, "0")}`;
    const logDirectory = join(scratch, "var/log/pods", `default_${name}_${uid}`);
    const id = await service.runPodSandbox({
      metadata: { name, namespace: "default", uid, attempt: 0 },
      hostname: name,
      logDirectory,
    });
    return { id, logDirectory };
  }

  function busybox(name: string, command: string[], mounts: Mount[] = []): ContainerConfig {
    return {
      metadata: { name, attempt: 0 },
      image: "busybox",
      command,
      args: [],
      workingDir: "",
      envs: [{ key: "GREETING", value: "hello from the pod" }],
      mounts,
      devices: [],
      logPath: `${name}/0.log`,
    };
  }

  async function volumeDir(name: string): Promise<string> {
    const dir = join(scratch, "volumes", name);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  function rw(hostPath: string, containerPath: string): Mount {
    return { hostPath, containerPath, readonly: false, propagation: "PROPAGATION_PRIVATE" };
  }

  async function runToExit(service: RuntimeService, sandboxId: string, config: ContainerConfig) {
    const id = await service.createContainer(sandboxId, config);
    const exited = new Promise<void>((resolve) => {
      const stop = service.onContainerExit((status) => {
        if (status.id !== id) return;
        stop();
        resolve();
      });
    });
    await service.startContainer(id);
    await exited;
    return service.containerStatus(id);
  }

  function requireRuntime(t: Parameters<typeof requireOrSkip>[0]): RuntimeService | undefined {
    return requireOrSkip(t, skipReason) ? runtime : undefined;
  }

  test("a busybox container writes to a bind-mounted volume, the node sees the file, and its output is logged", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const data = await volumeDir("writer");
    const pod = await sandbox(service, "writer");
    const status = await runToExit(
      service,
      pod.id,
      busybox(
        "writer",
        ["sh", "-c", 'echo "$GREETING" > /data/out.txt; hostname; echo to-stderr >&2'],
        [rw(data, "/data")],
      ),
    );
    assert.equal(status.state, "CONTAINER_EXITED");
    assert.equal(status.exitCode, 0);
    assert.equal(status.reason, "Completed");
    assert.equal(await readFile(join(data, "out.txt"), "utf8"), "hello from the pod\n");
    const log = await readFile(join(pod.logDirectory, "writer/0.log"), "utf8");
    assert.match(log, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z stdout F writer\n/m, "hostname is the pod's name");
    assert.match(log, / stderr F to-stderr\n/);
    await service.removePodSandbox(pod.id);
    await assert.rejects(stat(pod.logDirectory), { code: "ENOENT" });
  });

  test("a readOnly volume refuses writes inside the container, and the exit code says so", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const data = await volumeDir("readonly");
    await writeFile(join(data, "kept.txt"), "original\n");
    const pod = await sandbox(service, "reader");
    const status = await runToExit(
      service,
      pod.id,
      busybox(
        "reader",
        ["sh", "-c", "cat /data/kept.txt; echo changed > /data/kept.txt"],
        [{ ...rw(data, "/data"), readonly: true }],
      ),
    );
    assert.equal(status.exitCode, 1);
    assert.equal(status.reason, "Error");
    assert.equal(await readFile(join(data, "kept.txt"), "utf8"), "original\n");
    const log = await readFile(status.logPath, "utf8");
    assert.match(log, / stdout F original\n/);
    assert.match(log, /Read-only file system/);
    await service.removePodSandbox(pod.id);
  });

  test("the container's exit code is reported as it exited", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const pod = await sandbox(service, "exits");
    const status = await runToExit(service, pod.id, busybox("exits", ["sh", "-c", "exit 3"]));
    assert.equal(status.exitCode, 3);
    assert.equal(status.reason, "Error");
    await service.removePodSandbox(pod.id);
  });

  test("a command missing from the image is a StartError with exit code 128", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const pod = await sandbox(service, "missing");
    const id = await service.createContainer(pod.id, busybox("missing", ["no-such-program"]));
    await assert.rejects(service.startContainer(id), /exec: "no-such-program": executable file not found in \$PATH/);
    const status = await service.containerStatus(id);
    assert.equal(status.state, "CONTAINER_EXITED");
    assert.equal(status.exitCode, 128);
    assert.equal(status.reason, "StartError");
    await service.removePodSandbox(pod.id);
  });

  test("ExecSync runs a command inside the running container: its files, its hostname, its network, its exit code", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const data = await volumeDir("exec");
    await writeFile(join(data, "health"), "ok\n");
    const pod = await sandbox(service, "exec-target");
    const id = await service.createContainer(pod.id, busybox("app", ["sleep", "3600"], [rw(data, "/srv")]));
    await service.startContainer(id);
    assert.equal((await service.containerStatus(id)).state, "CONTAINER_RUNNING");
    const cat = await service.execSync(id, ["cat", "/srv/health"], 5000);
    assert.deepEqual([cat.stdout.toString(), cat.exitCode], ["ok\n", 0]);
    const host = await service.execSync(id, ["hostname"], 5000);
    assert.equal(host.stdout.toString(), "exec-target\n");
    const ps = await service.execSync(id, ["sh", "-c", "ls /proc | grep -c '^[0-9]'"], 5000);
    assert.ok(Number(ps.stdout.toString()) <= 4, `only the container's processes are visible: ${ps.stdout}`);
    // A network namespace of its own: the loopback device only, not the machine's interfaces.
    const net = await service.execSync(id, ["sh", "-c", "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '"], 5000);
    assert.equal(net.stdout.toString(), "lo\n");
    const failing = await service.execSync(id, ["sh", "-c", "echo bad >&2; exit 4"], 5000);
    assert.deepEqual([failing.stderr.toString(), failing.exitCode], ["bad\n", 4]);
    await service.removePodSandbox(pod.id);
  });

  test("stop kills the whole process tree after the grace period and leaves no process, cgroup or mount", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const data = await volumeDir("stopped");
    const pod = await sandbox(service, "stopped");
    // PID 1 of a PID namespace ignores SIGTERM without a handler, so the grace period runs out.
    const id = await service.createContainer(
      pod.id,
      busybox("tree", ["sh", "-c", "trap '' TERM; sleep 3600 & sleep 3600 & wait"], [rw(data, "/data")]),
    );
    await service.startContainer(id);
    const cgroupDir = join(cgroupRoot, `pod${"0".repeat(8)}-0000-0000-0000-${String(podCount).padStart(12, "0")}`, id);
    await waitFor(async () => (await cgroupPids(cgroupDir)).length >= 4);
    const pids = await cgroupPids(cgroupDir);
    await service.stopContainer(id, 200);
    const status = await service.containerStatus(id);
    assert.equal(status.exitCode, 137, await readFile(status.logPath, "utf8"));
    for (const pid of pids) assert.equal(await isProcessAlive(pid), false, `process ${pid} is gone`);
    await service.removePodSandbox(pod.id);
    await assert.rejects(stat(cgroupDir), { code: "ENOENT" });
    assert.deepEqual(await mountsUnder(scratch), []);
    assert.deepEqual(await readdir(join(scratch, "containers")), []);
  });

  test("a stop asked for while the container is still starting stops it once it runs: no process or cgroup is left", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const pod = await sandbox(service, "stopped-starting");
    const id = await service.createContainer(pod.id, busybox("starting", ["sleep", "3600"]));
    const cgroupDir = join(cgroupRoot, `pod${"0".repeat(8)}-0000-0000-0000-${String(podCount).padStart(12, "0")}`, id);
    const started = service.startContainer(id);
    await service.stopContainer(id, 0);
    await started;
    const status = await service.containerStatus(id);
    assert.equal(status.state, "CONTAINER_EXITED");
    assert.equal(status.exitCode, 137);
    assert.deepEqual(await cgroupPids(cgroupDir), []);
    assert.deepEqual(await processesMentioning(join(scratch, "containers", id)), [], "the container's monitor is gone");
    await service.removePodSandbox(pod.id);
    await assert.rejects(stat(cgroupDir), { code: "ENOENT" });
    assert.deepEqual(await readdir(join(scratch, "containers")), []);
  });

  test("a node shutdown while a pod's container is being started leaves no container, monitor, cgroup or mount", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const data = await volumeDir("shutdown");
    const podLogsDir = join(scratch, "shutdown-logs");
    const kubeletRuntime = new CriContainerRuntime({ service, clock: new RealClock(), podLogsDir });
    const uid = "00000000-0000-0000-0000-0000000000ff";
    const pod: Pod = {
      metadata: { name: "admitted", namespace: "default", uid },
      spec: { containers: [{ name: "main", image: "busybox", command: ["sleep", "3600"] }] },
    };
    const container = pod.spec?.containers[0] ?? { name: "main" };
    const mount: ContainerMount = {
      volumeName: "data",
      containerPath: "/data",
      hostPath: data,
      readOnly: false,
      followsHostMounts: false,
      propagation: "None",
      mountIdAtStart: undefined,
    };
    // The pod was just admitted: its container's start is under way when the node is told to stop.
    const starting = kubeletRuntime.start(pod, container, 0, [mount]);
    await kubeletRuntime.shutdown(0);
    const instance = await starting;
    assert.equal(instance.state, "exited", "the container the start made was stopped");
    assert.equal(instance.exitCode, 137);
    const podCgroupDir = join(cgroupRoot, `pod${uid}`);
    await assert.rejects(stat(podCgroupDir), { code: "ENOENT" });
    assert.deepEqual(await processesMentioning(join(scratch, "containers")), [], "no container monitor runs on");
    assert.deepEqual(await readdir(join(scratch, "containers")), []);
    assert.deepEqual(await service.listPodSandbox(), []);
    assert.deepEqual(await mountsUnder(scratch), []);
  });

  test("a runtime started over the same state adopts a running container: same process, its exit heard, its log continued", async (t) => {
    const first = requireRuntime(t);
    if (first === undefined) return;
    const probe = await probeLinuxRuntime();
    if ("problems" in probe)
      assert.fail(`the runtime passed its probe before this test and fails it now: ${probe.problems.join("; ")}`);
    const pod = await sandbox(first, "adopted");
    const id = await first.createContainer(
      pod.id,
      busybox("ticker", ["sh", "-c", "trap 'echo bye; exit 0' TERM; echo one; while true; do sleep 0.1; done"]),
    );
    await first.startContainer(id);
    const cgroupDir = join(cgroupRoot, `pod${"0".repeat(8)}-0000-0000-0000-${String(podCount).padStart(12, "0")}`, id);
    await waitFor(async () => (await namespaceInitPid(cgroupDir)) !== undefined);
    const init = await namespaceInitPid(cgroupDir);
    const { logPath } = await first.containerStatus(id);

    // The agent that started it is gone: a new runtime over the same state directory and cgroups.
    const second = new LinuxRuntimeService({
      clock: new RealClock(),
      rng: new Rng(process.pid + 1),
      images: new ImageStore(join(scratch, "images")),
      stateDir: join(scratch, "containers"),
      cgroupRoot,
      tools: probe.tools,
    });
    await second.recover();
    const sandboxes = await second.listPodSandbox();
    assert.deepEqual(
      sandboxes.map((s) => [s.id, s.metadata.name]),
      [[pod.id, "adopted"]],
    );
    const [adopted] = await second.listContainers(pod.id);
    assert.equal(adopted?.id, id);
    assert.equal(adopted?.state, "CONTAINER_RUNNING");
    assert.equal(await namespaceInitPid(cgroupDir), init, "the same process runs on");
    const exit = new Promise<number>((resolve) => second.onContainerExit((status) => resolve(status.exitCode)));
    await second.stopContainer(id, 5000);
    assert.equal(await exit, 0);
    assert.match(await readFile(logPath, "utf8"), / stdout F one\n.* stdout F bye\n/s);
    await second.removePodSandbox(pod.id);
    assert.deepEqual(await readdir(join(scratch, "containers")), []);
  });

  test("a block device (volumeDevices) appears at its devicePath: the container reads the node's bytes and writes its own", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const backing = join(scratch, "disk.img");
    await writeFile(backing, Buffer.concat([Buffer.from("KVOLDISK"), Buffer.alloc(1024 * 1024 - 8)]));
    const loop = execFileSync("losetup", ["--find", "--show", backing], { encoding: "utf8" }).trim();
    // The kubelet hands the runtime a symlink to the device under the pod's directory.
    const podDevices = await volumeDir("pod-volume-devices");
    await symlink(loop, join(podDevices, "pv-raw"));
    const pod = await sandbox(service, "block");
    const script = [
      "test -b /dev/xvda",
      "head -c 8 /dev/xvda",
      "echo",
      "echo written-by-the-container | dd of=/dev/xvda bs=512 seek=8 conv=notrunc,fsync 2>/dev/null",
      "dd if=/dev/xvda bs=512 skip=8 count=1 2>/dev/null | head -n 1",
    ].join(" && ");
    try {
      const status = await runToExit(service, pod.id, {
        ...busybox("rw", ["sh", "-c", script]),
        devices: [{ containerPath: "/dev/xvda", hostPath: join(podDevices, "pv-raw") }],
      });
      const log = await readFile(status.logPath, "utf8");
      assert.equal(status.exitCode, 0, log);
      assert.match(log, / stdout F KVOLDISK\n/);
      assert.match(log, / stdout F written-by-the-container\n/);
      execFileSync("blockdev", ["--flushbufs", loop]);
      const onDisk = (await readFile(backing)).subarray(8 * 512, 8 * 512 + 24).toString();
      assert.equal(onDisk, "written-by-the-container");
    } finally {
      await service.removePodSandbox(pod.id);
      execFileSync("losetup", ["--detach", loop]);
    }
  });

  test("mount propagation: HostToContainer sees a mount the node makes later, None does not", async (t) => {
    const service = requireRuntime(t);
    if (service === undefined) return;
    const data = await volumeDir("propagation");
    execFileSync("mount", ["--bind", data, data]);
    execFileSync("mount", ["--make-shared", data]);
    await mkdir(join(data, "later"));
    const pod = await sandbox(service, "propagation");
    const follows = await service.createContainer(pod.id, {
      ...busybox(
        "follows",
        ["sleep", "3600"],
        [{ ...rw(data, "/data"), propagation: "PROPAGATION_HOST_TO_CONTAINER" }],
      ),
    });
    const keeps = await service.createContainer(pod.id, busybox("keeps", ["sleep", "3600"], [rw(data, "/data")]));
    await service.startContainer(follows);
    await service.startContainer(keeps);
    execFileSync("mount", ["-t", "tmpfs", "tmpfs", join(data, "later")]);
    await writeFile(join(data, "later/on-tmpfs"), "x");
    try {
      const seen = await service.execSync(follows, ["ls", "/data/later"], 5000);
      assert.equal(seen.stdout.toString(), "on-tmpfs\n");
      const unseen = await service.execSync(keeps, ["ls", "/data/later"], 5000);
      assert.equal(unseen.stdout.toString(), "");
    } finally {
      await service.removePodSandbox(pod.id);
      execFileSync("umount", [join(data, "later")]);
      execFileSync("umount", [data]);
    }
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const clock = new RealClock();
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await condition()) return;
    await clock.sleep(25);
  }
  assert.fail("condition not reached within 5 s");
}

/** The processes whose command line names `text` (a container's monitor names its directory). */
async function processesMentioning(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(join("/proc", entry, "cmdline"), "utf8").catch((error: NodeJS.ErrnoException) => {
      // A process that exited while the list was read.
      if (error.code === "ENOENT" || error.code === "ESRCH") return "";
      throw error;
    });
    if (cmdline.split("\0").some((arg) => arg.includes(text))) pids.push(Number(entry));
  }
  return pids;
}

/** Removes a test's cgroup tree, killing what a failed test left running in it. */
async function removeCgroupTree(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await removeCgroupTree(join(dir, entry.name));
  }
  if ((await cgroupPids(dir)).length > 0) {
    await writeFile(join(dir, "cgroup.kill"), "1");
    await waitFor(async () => (await cgroupPids(dir)).length === 0);
  }
  await rmdir(dir);
}
