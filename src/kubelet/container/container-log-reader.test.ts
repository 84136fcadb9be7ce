import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { SimWorld } from "../../host/sim/sim-world.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { ContainerLogUnavailable, readContainerLog } from "./container-log-reader.ts";
import { SimContainerRuntime } from "./sim-container-runtime.ts";

/** 2026-01-02T03:04:05.000Z */
const startMs = 1_767_323_045_000;

function backupPod(command: string[]): Pod {
  return {
    metadata: { name: "backup-x", namespace: "default", uid: "uid-1" },
    spec: { containers: [{ name: "tar", image: "busybox", command }] },
  };
}

async function setUp() {
  const clock = new VirtualClock({ startTimeMs: startMs });
  const rng = new Rng(1);
  const host = new SimWorld(clock, rng.stream("world")).addNode("node-a");
  const runtime = SimContainerRuntime.forHost(host, clock, rng);
  return { clock, host, runtime };
}

describe("container logs on the node", () => {
  it("keeps what the command echoes, each line at its time, in /var/log/pods/<ns>_<pod>_<uid>/<container>/<restart>.log", async () => {
    const { clock, host, runtime } = await setUp();
    const pod = backupPod(["sh", "-c", "echo starting backup; sleep 2; echo 'done'"]);
    const container = pod.spec?.containers[0];
    assert.ok(container !== undefined);
    runtime.start(pod, container, 0, []);
    await clock.advanceBy(3_000);
    const log = await readContainerLog(runtime, pod, "tar", false);
    assert.deepEqual(
      log.entries.map((entry) => [entry.timeMs - startMs, entry.text]),
      [
        [0, "starting backup"],
        [2_000, "done"],
      ],
    );
    assert.equal(log.running, false);
    const file = new TextDecoder().decode(await host.readFile("/var/log/pods/default_backup-x_uid-1/tar/0.log"));
    assert.equal(
      file,
      "2026-01-02T03:04:05.000000000Z stdout F starting backup\n2026-01-02T03:04:07.000000000Z stdout F done\n",
    );
  });

  it("writes lifecycle lines for a container that prints nothing, and refuses a missing previous instance", async () => {
    const { clock, runtime } = await setUp();
    const pod = backupPod([]);
    const container = pod.spec?.containers[0];
    assert.ok(container !== undefined);
    runtime.start(pod, container, 0, []);
    await clock.advanceBy(0);
    const log = await readContainerLog(runtime, pod, "tar", false);
    assert.deepEqual(
      log.entries.map((entry) => entry.text),
      ['kvol: simulated container "tar" started from image busybox; it runs no real process, so it prints nothing'],
    );
    await assert.rejects(
      readContainerLog(runtime, pod, "tar", true),
      new ContainerLogUnavailable('previous terminated container "tar" in pod "backup-x" not found'),
    );
  });

  it("says a container that has not started is waiting, with its reason", async () => {
    const { runtime } = await setUp();
    const pod: Pod = {
      ...backupPod([]),
      status: {
        containerStatuses: [
          {
            name: "tar",
            image: "busybox",
            imageID: "",
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: "ContainerCreating" } },
          },
        ],
      },
    };
    await assert.rejects(
      readContainerLog(runtime, pod, "tar", false),
      new ContainerLogUnavailable('container "tar" in pod "backup-x" is waiting to start: ContainerCreating'),
    );
  });
});
