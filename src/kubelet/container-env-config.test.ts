import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { KubeletTestEnv } from "./testing/kubelet-test-env.ts";

const envs: KubeletTestEnv[] = [];
afterEach(async () => {
  for (const env of envs.splice(0)) await env.stop();
});

const greeter: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace: "default", name: "greeter" },
  spec: {
    restartPolicy: "Never",
    containers: [
      {
        name: "app",
        image: "busybox",
        command: ["sh", "-c", "echo $(GREETING) from $(POD_NAME); sleep 3600"],
        env: [
          { name: "GREETING", valueFrom: { configMapKeyRef: { name: "greetings", key: "greeting" } } },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        ],
      },
    ],
  },
};

test("a container whose configMap is missing waits with CreateContainerConfigError until it appears", async () => {
  const env = await KubeletTestEnv.start();
  envs.push(env);
  await env.createPod(greeter);
  await env.runUntil(
    async () =>
      (await env.pod("greeter"))?.status?.containerStatuses?.[0]?.state?.waiting?.reason ===
      "CreateContainerConfigError",
    60_000,
    "CreateContainerConfigError",
  );
  const waiting = (await env.pod("greeter"))?.status?.containerStatuses?.[0]?.state?.waiting;
  assert.deepEqual(waiting, { reason: "CreateContainerConfigError", message: 'configmap "greetings" not found' });
  assert.ok((await env.podEventTexts("greeter")).includes('Failed: Error: configmap "greetings" not found'));
  assert.equal((await env.pod("greeter"))?.status?.phase, "Pending");

  await env.client.configMaps.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "default", name: "greetings" },
    data: { wrong: "x" },
  });
  await env.runUntil(
    async () =>
      (await env.pod("greeter"))?.status?.containerStatuses?.[0]?.state?.waiting?.message ===
      "couldn't find key greeting in ConfigMap default/greetings",
    5 * 60_000,
    "missing key",
  );

  await env.client.configMaps.update({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "default", name: "greetings" },
    data: { greeting: "hello" },
  });
  await env.runUntil(async () => (await env.phase("greeter")) === "Running", 5 * 60_000, "greeter running");
  const status = (await env.pod("greeter"))?.status?.containerStatuses?.[0];
  assert.equal(status?.restartCount, 0);
  const uid = (await env.pod("greeter"))?.metadata?.uid ?? "";
  const log = await env.readHostFile(`/var/log/pods/default_greeter_${uid}/app/0.log`);
  assert.match(log, / stdout F hello from greeter\n/);
});
