import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../../host/sim/testing/sim-test-world.ts";
import { type ContainerMount, prepareContainerMounts } from "../container/container-mounts.ts";
import { ProbeCommandRunner } from "./probe-command.ts";

async function nodeWithVolume() {
  const { world } = newTestWorld();
  const host = world.addNode("node-1");
  await host.mkdir("/data/vol", 0o755, { recursive: true });
  await host.writeFile("/data/vol/health", "ok");
  const mounts: ContainerMount[] = await prepareContainerMounts(
    host,
    { name: "app", volumeMounts: [{ name: "vol", mountPath: "/srv" }] },
    new Map([["vol", "/data/vol"]]),
    {
      bind: () => {
        throw new Error("no subPath here");
      },
    },
  );
  return { host, runner: new ProbeCommandRunner(host, mounts) };
}

describe("ProbeCommandRunner", () => {
  it("runs ls and cat against the node path behind the container's volume mount", async () => {
    const { runner } = await nodeWithVolume();
    assert.deepEqual(await runner.run(["ls", "/srv"]), { exitCode: 0, output: "health\n" });
    assert.deepEqual(await runner.run(["cat", "/srv/health"]), { exitCode: 0, output: "ok" });
    assert.deepEqual(await runner.run(["sh", "-c", "test -f /srv/health"]), { exitCode: 0, output: "" });
  });

  it("fails with coreutils' wording for missing files and directories", async () => {
    const { runner } = await nodeWithVolume();
    assert.deepEqual(await runner.run(["cat", "/srv/missing"]), {
      exitCode: 1,
      output: "cat: /srv/missing: No such file or directory\n",
    });
    assert.deepEqual(await runner.run(["ls", "/srv/nope"]), {
      exitCode: 2,
      output: "ls: cannot access '/srv/nope': No such file or directory\n",
    });
    assert.deepEqual(await runner.run(["cat", "/srv"]), { exitCode: 1, output: "cat: /srv: Is a directory\n" });
  });

  it("takes paths outside every volume to be in the image, which is not modelled", async () => {
    const { runner } = await nodeWithVolume();
    assert.equal((await runner.run(["cat", "/etc/nginx/nginx.conf"])).exitCode, 0);
    assert.equal((await runner.run(["false"])).exitCode, 1);
  });
});

describe("ProbeCommandRunner grep", () => {
  it("exits 0 when a line holds the pattern, 1 when none does, 2 with grep's wording for a missing file", async () => {
    const { host, runner } = await nodeWithVolume();
    await host.writeFile("/data/vol/app.conf", "color=blue\nsize=3\n");
    assert.deepEqual(await runner.run(["grep", "color=blue", "/srv/app.conf"]), {
      exitCode: 0,
      output: "color=blue\n",
    });
    assert.deepEqual(await runner.run(["grep", "-q", "color=green", "/srv/app.conf"]), { exitCode: 1, output: "" });
    assert.deepEqual(await runner.run(["sh", "-c", "grep -q size /srv/app.conf"]), { exitCode: 0, output: "" });
    assert.deepEqual(await runner.run(["grep", "-q", "x", "/srv/missing"]), {
      exitCode: 2,
      output: "grep: /srv/missing: No such file or directory\n",
    });
  });
});
