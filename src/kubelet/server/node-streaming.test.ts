import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { SimWorld } from "../../host/sim/sim-world.ts";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { ContainerMount } from "../container/container-mounts.ts";
import { SimContainerRuntime } from "../container/sim-container-runtime.ts";
import { StreamRefused } from "./kubelet-server.ts";
import { nodeStreaming } from "./node-streaming.ts";
import type { RemoteCommandStreams } from "./remote-command.ts";

const volumeDir = "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~empty-dir/data";

function pod(): Pod {
  return {
    metadata: { name: "box", namespace: "default", uid: "uid-1" },
    spec: { containers: [{ name: "main", image: "busybox", command: ["sh", "-c", "echo up; exec httpd -f"] }] },
  };
}

function collecting(): { streams: RemoteCommandStreams; stdout: () => string } {
  let text = "";
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  const streams: RemoteCommandStreams = {
    stdout,
    tty: false,
    onResize: () => undefined,
    signal: new AbortController().signal,
  };
  return { streams, stdout: () => text };
}

async function setUp() {
  const clock = new VirtualClock();
  const rng = new Rng(1);
  const host = new SimWorld(clock, rng.stream("world")).addNode("node-a");
  const runtime = SimContainerRuntime.forHost(host, clock, rng);
  const current = pod();
  const streaming = nodeStreaming({ clock, host, runtime, podManager: { getPods: () => [current] } });
  return { clock, host, runtime, current, streaming };
}

describe("a simulated node's kubelet server", () => {
  it("runs exec as the simulated command against the volume behind the container's mount, with its exit code", async () => {
    const { host, runtime, current, streaming } = await setUp();
    await host.mkdir(volumeDir, 0o777, { recursive: true });
    await host.writeFile(`${volumeDir}/greeting`, "hello\n");
    const mount: ContainerMount = {
      volumeName: "data",
      containerPath: "/data",
      hostPath: volumeDir,
      readOnly: false,
      followsHostMounts: false,
      propagation: "None",
      mountIdAtStart: undefined,
    };
    const container = current.spec?.containers[0];
    assert.ok(container !== undefined);
    runtime.start(current, container, 0, [mount]);
    assert.equal(streaming.pod("default", "box"), current);
    assert.equal(streaming.pod("default", "other"), undefined);

    const ls = collecting();
    assert.deepEqual(await streaming.exec(current, "main", ["ls", "/data"], ls.streams), { exitCode: 0 });
    assert.equal(ls.stdout(), "greeting\n");
    const cat = collecting();
    assert.deepEqual(await streaming.exec(current, "main", ["cat", "/data/missing"], cat.streams), { exitCode: 1 });
    assert.equal(cat.stdout(), "cat: /data/missing: No such file or directory\n");
  });

  it("refuses a command for a container that is not running, in the kubelet's words", async () => {
    const { current, streaming } = await setUp();
    assert.throws(
      () => streaming.checkRunning(current, "main"),
      (error: unknown) => error instanceof StreamRefused && error.message === 'container not found ("main")',
    );
  });
});
