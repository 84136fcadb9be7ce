import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { ConfigMap, Pod, Secret, Volume } from "kubernetes-types/core/v1.js";
import { ProbeCommandRunner } from "../prober/probe-command.ts";
import { KubeletTestEnv } from "../testing/kubelet-test-env.ts";

const podsDir = "/var/lib/kubelet/pods";

/** The volume's key twice: the whole volume at /etc/config, one key by subPath at /etc/app.conf. */
function appPod(command: string[], source: Partial<Volume> = { configMap: { name: "app-config" } }): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name: "app" },
    spec: {
      containers: [
        {
          name: "app",
          image: "busybox:1.36",
          command,
          volumeMounts: [
            { name: "config", mountPath: "/etc/config" },
            { name: "config", mountPath: "/etc/app.conf", subPath: "app.conf" },
          ],
        },
      ],
      volumes: [{ name: "config", ...source }],
    },
  };
}

async function setConfig(env: KubeletTestEnv, text: string, create = false): Promise<void> {
  const configMap: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "default", name: "app-config" },
    data: { "app.conf": text },
  };
  if (create) await env.client.configMaps.create(configMap);
  else await env.client.configMaps.update(configMap);
}

async function setSecret(env: KubeletTestEnv, text: string, create = false): Promise<void> {
  const secret: Secret = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: "default", name: "app-secret" },
    data: { "app.conf": Buffer.from(text).toString("base64") },
  };
  if (create) await env.client.secrets.create(secret);
  else await env.client.secrets.update(secret);
}

/** The volume types whose contents the kubelet updates atomically; the same mechanism for each. */
const updatedVolumes: ReadonlyArray<{
  kind: string;
  source: Partial<Volume>;
  set: (env: KubeletTestEnv, text: string, create?: boolean) => Promise<void>;
}> = [
  { kind: "configMap", source: { configMap: { name: "app-config" } }, set: setConfig },
  { kind: "secret", source: { secret: { secretName: "app-secret" } }, set: setSecret },
  {
    kind: "projected",
    source: { projected: { sources: [{ configMap: { name: "app-config" } }] } },
    set: setConfig,
  },
];

/** What `cat path` prints inside the app container running now. */
async function catInContainer(env: KubeletTestEnv, path: string): Promise<string> {
  const uid = (await env.pod("app"))?.metadata?.uid ?? "";
  const instance = env.kubelet.runtime.current(uid, "app");
  assert.equal(instance?.state, "running", "the container runs");
  const result = await new ProbeCommandRunner(env.host, instance?.mounts ?? []).run(["cat", path]);
  assert.equal(result.exitCode, 0, result.output);
  return result.output;
}

describe("subPath mounts of configMap, secret, projected and downwardAPI volumes (k/k#50345)", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  for (const { kind, source, set } of updatedVolumes) {
    it(`${kind}: the whole volume follows an update while the subPath keeps the file of the container's start`, async () => {
      const env = await KubeletTestEnv.start();
      envs.push(env);
      await set(env, "v1", true);
      await env.createPod(appPod(["nginx"], source));
      await env.runUntil(async () => (await env.phase("app")) === "Running", 30_000, "running");
      assert.equal(await catInContainer(env, "/etc/config/app.conf"), "v1");
      assert.equal(await catInContainer(env, "/etc/app.conf"), "v1");

      await set(env, "v2");
      await env.runUntil(
        async () => (await catInContainer(env, "/etc/config/app.conf")) === "v2",
        3 * 60_000,
        "the volume updated",
      );
      await env.runFor(3 * 60_000);
      assert.equal(await catInContainer(env, "/etc/app.conf"), "v1", "a subPath never sees the update");
      assert.equal(await catInContainer(env, "/etc/config/app.conf"), "v2");
    });
  }

  it("downwardAPI: a label change reaches the whole volume, not the subPath", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    const pod = appPod(["nginx"], {
      downwardAPI: { items: [{ path: "app.conf", fieldRef: { fieldPath: "metadata.labels['tier']" } }] },
    });
    await env.createPod({ ...pod, metadata: { ...pod.metadata, labels: { tier: "v1" } } });
    await env.runUntil(async () => (await env.phase("app")) === "Running", 30_000, "running");
    assert.equal(await catInContainer(env, "/etc/app.conf"), "v1");

    await env.client.pods.patch("default", "app", { metadata: { labels: { tier: "v2" } } });
    await env.runUntil(
      async () => (await catInContainer(env, "/etc/config/app.conf")) === "v2",
      3 * 60_000,
      "the volume updated",
    );
    await env.runFor(3 * 60_000);
    assert.equal(await catInContainer(env, "/etc/app.conf"), "v1", "a subPath never sees the update");
  });

  it("a restarted container binds the subPath again and gets the new file; deleting the pod leaves no bind", async () => {
    const env = await KubeletTestEnv.start();
    envs.push(env);
    await setConfig(env, "v1", true);
    await env.createPod(appPod(["sh", "-c", "sleep 150; exit 1"]));
    await env.runUntil(async () => (await env.phase("app")) === "Running", 30_000, "running");
    const uid = (await env.pod("app"))?.metadata?.uid ?? "";
    const bind = `${podsDir}/${uid}/volume-subpaths/config/app/1`;
    assert.ok((await env.mountPoints()).includes(bind), "the subPath is bound under volume-subpaths");

    await setConfig(env, "v2");
    await env.runUntil(
      async () => (await catInContainer(env, "/etc/config/app.conf")) === "v2",
      3 * 60_000,
      "the volume updated",
    );
    assert.equal(await catInContainer(env, "/etc/app.conf"), "v1");
    await env.runUntil(
      async () => (await env.pod("app"))?.status?.containerStatuses?.[0]?.restartCount === 1,
      3 * 60_000,
      "the container restarted",
    );
    await env.runUntil(async () => env.kubelet.runtime.current(uid, "app")?.state === "running", 60_000, "running");
    assert.equal(await catInContainer(env, "/etc/app.conf"), "v2", "the new container binds what the path names now");

    await env.client.pods.delete("default", "app", { gracePeriodSeconds: 0 });
    await env.runUntil(async () => (await env.pod("app")) === undefined, 2 * 60_000, "pod gone");
    await env.runFor(10_000);
    assert.deepEqual(
      (await env.mountPoints()).filter((path) => path.includes(uid)),
      [],
      "no subPath bind or volume mount left",
    );
    await env.runUntil(
      async () => !(await env.host.readdir(podsDir)).includes(uid),
      60_000,
      "the pod directory removed",
    );
  });
});
