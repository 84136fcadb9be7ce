import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigMap, Container, Pod, Secret } from "kubernetes-types/core/v1.js";
import {
  ContainerConfigError,
  type EnvContext,
  makeEnvironmentVariables,
  resolveContainerEnvironment,
} from "./container-env.ts";

const configMaps: Record<string, ConfigMap> = {
  settings: { metadata: { name: "settings" }, data: { level: "debug", "log.format": "json", "1st": "x" } },
};
const secrets: Record<string, Secret> = {
  db: { metadata: { name: "db" }, data: { password: Buffer.from("s3cr3t").toString("base64") } },
};

function context(warnings: string[] = []): EnvContext {
  return {
    source: {
      getConfigMap: async (_namespace, name) => configMaps[name],
      getSecret: async (_namespace, name) => secrets[name],
    },
    podIP: "10.0.0.7",
    hostIP: "10.0.0.7",
    nodeAllocatable: { cpu: "2", memory: "4Gi" },
    invalidNames: (message) => warnings.push(message),
  };
}

function pod(container: Container): Pod {
  return {
    metadata: { name: "web", namespace: "shop", uid: "uid-1", labels: { app: "web" } },
    spec: { nodeName: "node-1", serviceAccountName: "default", containers: [container] },
  };
}

async function envOf(container: Container, warnings?: string[]): Promise<Record<string, string>> {
  const vars = await makeEnvironmentVariables(pod(container), container, context(warnings));
  return Object.fromEntries(vars.map(({ name, value }) => [name, value]));
}

async function configError(container: Container): Promise<string> {
  const error = await makeEnvironmentVariables(pod(container), container, context()).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ContainerConfigError, `expected a config error, got ${String(error)}`);
  return error.message;
}

test("values from configMap and secret keys, pod fields and resources", async () => {
  const env = await envOf({
    name: "app",
    resources: { limits: { memory: "64Mi" } },
    env: [
      { name: "LEVEL", valueFrom: { configMapKeyRef: { name: "settings", key: "level" } } },
      { name: "PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
      { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: "NS", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      { name: "UID", valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
      { name: "NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
      { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
      { name: "SA", valueFrom: { fieldRef: { fieldPath: "spec.serviceAccountName" } } },
      { name: "APP", valueFrom: { fieldRef: { fieldPath: "metadata.labels['app']" } } },
      { name: "MEM_MI", valueFrom: { resourceFieldRef: { resource: "limits.memory", divisor: "1Mi" } } },
      { name: "CPUS", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } },
    ],
  });
  assert.deepEqual(env, {
    LEVEL: "debug",
    PASSWORD: "s3cr3t",
    POD: "web",
    NS: "shop",
    UID: "uid-1",
    NODE: "node-1",
    IP: "10.0.0.7",
    SA: "default",
    APP: "web",
    MEM_MI: "64",
    CPUS: "2",
  });
});

test("envFrom with a prefix; env overrides it and expands $(VAR) of earlier variables", async () => {
  const warnings: string[] = [];
  const env = await envOf(
    {
      name: "app",
      envFrom: [{ configMapRef: { name: "settings" }, prefix: "CFG_" }, { secretRef: { name: "db" } }],
      env: [
        { name: "CFG_level", value: "info" },
        { name: "URL", value: "postgres://app:$(password)@db/$(CFG_level)?$(UNSET)" },
      ],
    },
    warnings,
  );
  assert.deepEqual(env, {
    CFG_level: "info",
    "CFG_log.format": "json",
    CFG_1st: "x",
    password: "s3cr3t",
    URL: "postgres://app:s3cr3t@db/info?$(UNSET)",
  });
  assert.deepEqual(warnings, []);
});

test("envFrom keys that are not variable names are skipped with one warning", async () => {
  const warnings: string[] = [];
  const env = await envOf({ name: "app", envFrom: [{ configMapRef: { name: "settings" } }] }, warnings);
  assert.deepEqual(env, { level: "debug", "log.format": "json" });
  assert.deepEqual(warnings, [
    "Keys [1st] from the EnvFrom configMap shop/settings were skipped since they are considered invalid environment variable names.",
  ]);
});

test("a missing configMap, secret or key is Kubernetes' error, unless optional", async () => {
  assert.equal(
    await configError({ name: "app", env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "x", key: "k" } } }] }),
    'configmap "x" not found',
  );
  assert.equal(
    await configError({
      name: "app",
      env: [{ name: "A", valueFrom: { configMapKeyRef: { name: "settings", key: "k" } } }],
    }),
    "couldn't find key k in ConfigMap shop/settings",
  );
  assert.equal(
    await configError({ name: "app", env: [{ name: "A", valueFrom: { secretKeyRef: { name: "nope", key: "k" } } }] }),
    'secret "nope" not found',
  );
  assert.equal(
    await configError({ name: "app", env: [{ name: "A", valueFrom: { secretKeyRef: { name: "db", key: "user" } } }] }),
    "couldn't find key user in Secret shop/db",
  );
  assert.equal(
    await configError({ name: "app", envFrom: [{ secretRef: { name: "nope" } }] }),
    'secret "nope" not found',
  );
  assert.equal(
    await configError({ name: "app", env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "spec.hostname" } } }] }),
    "unsupported fieldPath: spec.hostname",
  );
  const optional = await envOf({
    name: "app",
    envFrom: [{ configMapRef: { name: "x", optional: true } }],
    env: [
      { name: "A", valueFrom: { configMapKeyRef: { name: "x", key: "k", optional: true } } },
      { name: "B", valueFrom: { secretKeyRef: { name: "db", key: "user", optional: true } } },
      { name: "C", value: "set" },
    ],
  });
  assert.deepEqual(optional, { C: "set" });
});

test("command and args are expanded with the final environment; $$ escapes", async () => {
  const container: Container = {
    name: "app",
    command: ["sh", "-c", "echo $(GREETING) $$(GREETING) $(MISSING)"],
    args: ["--level=$(LEVEL)"],
    env: [
      { name: "GREETING", value: "hello" },
      { name: "LEVEL", valueFrom: { configMapKeyRef: { name: "settings", key: "level" } } },
    ],
  };
  const resolved = await resolveContainerEnvironment(pod(container), container, context());
  assert.deepEqual(resolved.command, ["sh", "-c", "echo hello $(GREETING) $(MISSING)"]);
  assert.deepEqual(resolved.args, ["--level=debug"]);
  assert.deepEqual(resolved.env, [
    { name: "GREETING", value: "hello" },
    { name: "LEVEL", value: "debug" },
  ]);
  assert.equal(resolved.envFrom, undefined);
});
