import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "../testing/kubelet-test-env.ts";

const bucketMount = "/mnt/photos";

/** Seed 003's pod: the bucket served by a FUSE daemon, checked by `ls` every 5 s after 20 s. */
function bucketPod(): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "default", name: "nginx" },
    spec: {
      containers: [
        {
          name: "nginx",
          image: "nginx:1.25",
          livenessProbe: {
            exec: { command: ["ls", "/var/lib/www/html"] },
            initialDelaySeconds: 20,
            periodSeconds: 5,
            failureThreshold: 3,
            timeoutSeconds: 5,
          },
          volumeMounts: [{ name: "webroot", mountPath: "/var/lib/www/html" }],
        },
      ],
      volumes: [{ name: "webroot", hostPath: { path: bucketMount } }],
    },
  };
}

async function startWithBucket(): Promise<{ env: KubeletTestEnv; mountBucket: () => Promise<number> }> {
  const env = await KubeletTestEnv.start();
  env.world.createBucket("photos");
  await env.host.mkdir(bucketMount, 0o755, { recursive: true });
  const mountBucket = async (): Promise<number> => {
    const daemon = await env.host.startDaemon({
      name: "s3fs",
      command: "s3fs",
      args: ["photos", bucketMount],
      scope: "own",
    });
    await env.host.writeFile(`${bucketMount}/index.html`, "hello");
    return daemon.pid;
  };
  return { env, mountBucket };
}

async function containerStatus(env: KubeletTestEnv) {
  return (await env.pod("nginx"))?.status?.containerStatuses?.[0];
}

describe("Liveness probes on volumes", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  it("restarts a container whose FUSE mount died, and it runs again once the mount is re-established", async () => {
    const { env, mountBucket } = await startWithBucket();
    envs.push(env);
    const daemonPid = await mountBucket();
    await env.createPod(bucketPod());
    await env.runFor(60_000);
    assert.equal((await containerStatus(env))?.restartCount, 0, "healthy while the daemon lives");

    await env.host.killProcess(daemonPid);
    await env.runUntil(
      async () => (await env.podEventTexts("nginx")).some((text) => text.startsWith("Killing: Container nginx failed")),
      30_000,
      "the liveness kill",
    );
    const texts = await env.podEventTexts("nginx");
    assert.ok(
      texts.includes(
        "Unhealthy: Liveness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected\n",
      ),
      texts.join("\n"),
    );
    assert.ok(texts.includes("Killing: Container nginx failed liveness probe, will be restarted"));
    await env.runFor(1_000);
    const blocked = await containerStatus(env);
    assert.equal(blocked?.state?.waiting?.reason, "CreateContainerError");
    assert.equal(
      blocked?.state?.waiting?.message,
      `error while creating mount source path '${bucketMount}': mkdir ${bucketMount}: file exists`,
    );
    assert.equal(blocked?.lastState?.terminated?.exitCode, 137);

    // The storage side recovers: unmount the dead mount and serve the bucket again.
    assert.equal((await env.host.run("umount", [bucketMount])).exitCode, 0);
    await mountBucket();
    await env.runUntil(async () => (await containerStatus(env))?.state?.running !== undefined, 30_000, "restarted");
    assert.equal((await containerStatus(env))?.restartCount, 1);
    await env.runFor(2 * 60_000);
    assert.equal((await containerStatus(env))?.restartCount, 1, "healthy again after the restart");
    assert.equal(await env.phase("nginx"), "Running");
  });

  it("a running container keeps the dead mount it started with until a restart binds the new one (seed 003)", async () => {
    const { env, mountBucket } = await startWithBucket();
    envs.push(env);
    const daemonPid = await mountBucket();
    await env.createPod(bucketPod());
    await env.runFor(30_000);

    await env.host.killProcess(daemonPid);
    assert.equal((await env.host.run("umount", [bucketMount])).exitCode, 0);
    await mountBucket();
    assert.deepEqual(await env.host.readdir(bucketMount), ["index.html"], "the node sees the bucket again");

    await env.runUntil(async () => (await containerStatus(env))?.restartCount === 1, 60_000, "one restart");
    await env.runFor(2 * 60_000);
    const status = await containerStatus(env);
    assert.equal(status?.restartCount, 1);
    assert.notEqual(status?.state?.running, undefined);
  });

  it("probes again after a kubelet restart: the container on the dead mount is restarted, as before the restart", async () => {
    const { env, mountBucket } = await startWithBucket();
    envs.push(env);
    const daemonPid = await mountBucket();
    await env.createPod(bucketPod());
    await env.runFor(60_000);
    await env.stopKubelet();
    await env.startKubelet();
    await env.runFor(60_000);
    assert.equal((await containerStatus(env))?.restartCount, 0, "healthy across the restart");

    await env.host.killProcess(daemonPid);
    const tookMs = await env.runUntil(
      async () => (await env.podEventTexts("nginx")).some((text) => text.startsWith("Killing: Container nginx failed")),
      60_000,
      "the liveness kill after the restart",
    );
    // Three failures 5 s apart: the third comes 10 to 15 s after the daemon died.
    assert.ok(tookMs <= 15_000, `killed ${tookMs} ms after the mount died`);
    assert.ok(
      (await env.podEventTexts("nginx")).includes(
        "Unhealthy: Liveness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected\n",
      ),
    );
  });
});

/** A pod whose container is Ready only while `ls` on its volume works. */
function readinessPod(): Pod {
  const pod = bucketPod();
  const container = pod.spec?.containers[0];
  if (container === undefined) throw new Error("bucketPod has a container");
  delete container.livenessProbe;
  container.readinessProbe = {
    exec: { command: ["ls", "/var/lib/www/html"] },
    initialDelaySeconds: 5,
    periodSeconds: 10,
  };
  return pod;
}

async function podReady(env: KubeletTestEnv): Promise<string | undefined> {
  return (await env.pod("nginx"))?.status?.conditions?.find((condition) => condition.type === "Ready")?.status;
}

describe("Readiness probes on volumes", () => {
  const envs: KubeletTestEnv[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.stop();
  });

  it("a container is not Ready until its readiness probe succeeds, and not Ready again once its mount died", async () => {
    const { env, mountBucket } = await startWithBucket();
    envs.push(env);
    const daemonPid = await mountBucket();
    await env.createPod(readinessPod());
    await env.runUntil(async () => (await containerStatus(env))?.state?.running !== undefined, 10_000, "running");
    assert.equal((await containerStatus(env))?.ready, false, "not Ready before the first probe");
    await env.runUntil(async () => (await podReady(env)) === "True", 10_000, "Ready");

    await env.host.killProcess(daemonPid);
    // failureThreshold 3, periodSeconds 10: Ready turns False within 30 s.
    await env.runUntil(async () => (await podReady(env)) === "False", 30_000, "not Ready");
    const status = await containerStatus(env);
    assert.equal(status?.ready, false);
    assert.equal(status?.restartCount, 0, "a readiness failure restarts nothing");
    assert.ok(
      (await env.podEventTexts("nginx")).includes(
        "Unhealthy: Readiness probe failed: ls: cannot access '/var/lib/www/html': Transport endpoint is not connected\n",
      ),
    );
  });

  it("after a kubelet restart the readiness probe runs again: the container on a mount that died becomes not Ready", async () => {
    const { env, mountBucket } = await startWithBucket();
    envs.push(env);
    const daemonPid = await mountBucket();
    await env.createPod(readinessPod());
    await env.runUntil(async () => (await podReady(env)) === "True", 30_000, "Ready");
    await env.stopKubelet();
    await env.startKubelet();
    await env.runUntil(async () => (await podReady(env)) === "True", 30_000, "Ready after the restart");

    await env.host.killProcess(daemonPid);
    await env.runUntil(async () => (await podReady(env)) === "False", 40_000, "not Ready after the restart");
  });
});
