import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "./testing/kubelet-test-env.ts";

const podsDir = "/var/lib/kubelet/pods";

function podWithSecret(name: string): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name },
    spec: {
      containers: [{ name: "app", image: "busybox:1.36", volumeMounts: [{ name: "token", mountPath: "/token" }] }],
      volumes: [{ name: "token", secret: { secretName: "token" } }],
    },
  };
}

describe("Kubelet restart", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  it("keeps the volumes and containers of running pods and cleans up a pod deleted while it was down", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    await env.client.secrets.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "default", name: "token" },
      data: { token: Buffer.from("abc").toString("base64") },
    });
    const names = ["web-0", "web-1", "web-2", "web-3"];
    const uids = new Map<string, string>();
    for (const name of names) uids.set(name, (await env.createPod(podWithSecret(name))).metadata?.uid ?? "");
    await env.runUntil(
      async () => (await Promise.all(names.map((name) => env.phase(name)))).every((phase) => phase === "Running"),
      10_000,
      "all running",
    );
    const containerIds = new Map<string, string | undefined>();
    for (const name of names)
      containerIds.set(name, (await env.pod(name))?.status?.containerStatuses?.[0]?.containerID);
    const mountOf = (name: string) => `${podsDir}/${uids.get(name)}/volumes/kubernetes.io~secret/token`;

    await env.stopKubelet();
    await env.client.pods.delete("default", "web-3");
    await env.runFor(60_000);
    assert.notEqual((await env.pod("web-3"))?.metadata?.deletionTimestamp, undefined, "nobody finishes it meanwhile");
    assert.equal((await env.client.nodes.get("", "node-1")).metadata?.name, "node-1");

    await env.startKubelet();
    await env.runUntil(async () => (await env.pod("web-3")) === undefined, 60_000, "web-3 removed");
    await env.runFor(10_000);

    for (const name of ["web-0", "web-1", "web-2"]) {
      const pod = await env.pod(name);
      assert.equal(pod?.status?.phase, "Running", name);
      assert.equal(pod?.status?.containerStatuses?.[0]?.restartCount, 0, name);
      assert.equal(
        pod?.status?.containerStatuses?.[0]?.containerID,
        containerIds.get(name),
        `${name} kept its container`,
      );
    }
    assert.deepEqual((await env.mountPoints()).sort(), ["web-0", "web-1", "web-2"].map(mountOf).sort());
    await env.runUntil(
      async () => !(await env.host.readdir(podsDir)).includes(uids.get("web-3") ?? ""),
      10_000,
      "web-3's directory removed",
    );
  });

  it("kills only the daemons in its own scope: a CSI node plugin's FUSE daemons and scoped mounts keep serving", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    const bucket = env.world.createBucket("photos");
    bucket.create(
      bucket.rootIno,
      "cat.jpg",
      { type: "file", mode: 0o644, data: new TextEncoder().encode("meow") },
      "/cat.jpg",
    );
    const mountPoints = { plugin: "/mnt/plugin", kubelet: "/mnt/kubelet", scoped: "/mnt/scoped" };
    for (const path of Object.values(mountPoints)) await env.host.mkdir(path, 0o755);
    const daemon = (agent: string, path: string) =>
      env.host.startDaemon({ name: `s3fs:${path}`, command: "s3fs", args: ["photos", path], scope: "agent", agent });
    await daemon("csi-node/fuse.csi.kvol.io", mountPoints.plugin);
    await daemon("kubelet", mountPoints.kubelet);
    const scoped = await env.host.run("systemd-run", [
      "--description=Kubernetes transient mount for /mnt/scoped",
      "--scope",
      "--",
      "s3fs",
      "photos",
      mountPoints.scoped,
    ]);
    assert.equal(scoped.exitCode, 0, scoped.output);

    await env.stopKubelet();
    await env.startKubelet();

    const read = async (path: string) => {
      try {
        return new TextDecoder().decode(await env.host.readFile(`${path}/cat.jpg`));
      } catch (error) {
        return String(error);
      }
    };
    assert.equal(await read(mountPoints.plugin), "meow", "the plugin's daemon lives with the plugin");
    assert.equal(await read(mountPoints.scoped), "meow", "a mount run under systemd-run --scope survives");
    assert.match(
      await read(mountPoints.kubelet),
      /transport endpoint is not connected/,
      "a daemon in kubelet.service's own cgroup dies with it",
    );
  });
});
