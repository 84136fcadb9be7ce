import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/test-api.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const pods = "/api/v1/namespaces/default/pods";

describe("exec, attach and portforward", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
    await t.call("POST", pods, testPod("default", "web"));
  });
  afterEach(() => t.close());

  it("answer a 400 Status saying the simulated containers run no commands, never a bare 404", async () => {
    const container = testPod("default", "web").spec?.containers[0]?.name ?? "";
    const exec = await t.call("POST", `${pods}/web/exec?command=ls&stdout=true&container=${container}`);
    assert.equal(exec.status, 400);
    assert.equal(exec.body.kind, "Status");
    assert.equal(
      exec.body.message,
      `kvol cannot run a command in container "${container}" of pod "web": kvol's containers are simulated and run no processes, so exec, attach and port-forward are not available (they will be once kvol nodes run real containers)`,
    );
    const attach = await t.call("GET", `${pods}/web/attach?stdout=true`);
    assert.equal(attach.status, 400);
    assert.match(String(attach.body.message), /^kvol cannot attach to container/);
    const forward = await t.call("POST", `${pods}/web/portforward?ports=80`);
    assert.equal(forward.status, 400);
    assert.match(String(forward.body.message), /^kvol cannot forward a port to pod "web"/);
  });

  it("check the pod and the container first, as kube-apiserver does", async () => {
    const missing = await t.call("POST", `${pods}/ghost/exec?command=ls`);
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'pods "ghost" not found');
    const wrong = await t.call("POST", `${pods}/web/exec?command=ls&container=nope`);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.message, "container nope is not valid for pod web");
  });
});
