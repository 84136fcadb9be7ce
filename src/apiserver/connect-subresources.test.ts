import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { Rng } from "../runtime/rng.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import { type RunningApiServer, startApiServer } from "./server.ts";

const pods = "/api/v1/namespaces/default/pods";

describe("exec, attach and portforward", () => {
  let server: RunningApiServer;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  beforeEach(async () => {
    const clock = new VirtualClock();
    const store = createMemoryStore({ clock, random: new Rng(1).stream("store") });
    const logger = new Logger({ clock, sink: new MemorySink(), level: "debug" });
    // node-a is a node of the server's own process (simulated: no processes run there).
    const kubelets = {
      kubeletOf: (name: string) =>
        name === "node-a" ? { containerLog: async () => ({ entries: [], running: true }) } : undefined,
    };
    server = await startApiServer({ store, clock, logger, port: 0, kubelets });
    await call("POST", pods, testPod("default", "web", "node-a"));
    await call("POST", pods, testPod("default", "pending"));
    const twoContainers = testPod("default", "pair", "node-a");
    twoContainers.spec?.containers.push({ name: "sidecar", image: "busybox" });
    await call("POST", pods, twoContainers);
  });
  afterEach(() => server.close());

  it("on a node simulated in the server's process: a 400 Status saying no processes run there, never a bare 404", async () => {
    const exec = await call("POST", `${pods}/web/exec?command=ls&stdout=true&container=main`);
    assert.equal(exec.status, 400);
    assert.equal(exec.body.kind, "Status");
    assert.equal(
      exec.body.message,
      'kvol cannot run a command in container "main" of pod "web": the nodes kvol up simulates in its own process run no processes, so exec, attach and port-forward are not available there (nodes joined with `kvol node` serve exec and attach)',
    );
    const attach = await call("GET", `${pods}/web/attach?stdout=true`);
    assert.equal(attach.status, 400);
    assert.match(String(attach.body.message), /^kvol cannot attach to container "main"/);
    const forward = await call("POST", `${pods}/web/portforward?ports=80`);
    assert.equal(forward.status, 400);
    assert.match(String(forward.body.message), /^kvol cannot forward a port to pod "web"/);
  });

  it("check the pod, the container and the node first, as kube-apiserver does", async () => {
    const missing = await call("POST", `${pods}/ghost/exec?command=ls`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods "ghost" not found');
    const wrong = await call("POST", `${pods}/web/exec?command=ls&container=nope`);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.message, "container nope is not valid for pod web");
    const unnamed = await call("POST", `${pods}/pair/exec?command=ls`);
    assert.equal(unnamed.status, 400);
    assert.equal(
      unnamed.body.message,
      "a container name must be specified for pod pair, choose one of: [main sidecar]",
    );
    const unscheduled = await call("POST", `${pods}/pending/exec?command=ls`);
    assert.equal(unscheduled.status, 400);
    assert.equal(unscheduled.body.message, "pod pending does not have a host assigned");
  });
});
