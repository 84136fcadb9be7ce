import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { type CliTestServer, capturedIo, startCliTestServer } from "./client/testing/cli-test-support.ts";
import { runDeleteCommand } from "./delete-command.ts";

const configMaps = "/api/v1/namespaces/default/configmaps";

describe("kvol delete", () => {
  let t: CliTestServer;
  beforeEach(async () => {
    t = await startCliTestServer();
    for (const name of ["a", "b"]) {
      await t.server.call("POST", configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, labels: { set: "one" } },
      });
    }
  });
  afterEach(() => t.close());

  it("deletes named objects and says so", async () => {
    const io = t.io();
    assert.equal(await runDeleteCommand(["configmap", "a"], io), 0, io.stderr);
    assert.equal(io.stdout, 'configmap "a" deleted\n');
    assert.equal((await t.server.call("GET", `${configMaps}/a`)).status, 404);
  });

  it("deletes by label selector and reports a missing object with exit status 1", async () => {
    const io = t.io();
    assert.equal(await runDeleteCommand(["cm", "-l", "set=one"], io), 0, io.stderr);
    assert.equal(io.stdout, 'configmap "a" deleted\nconfigmap "b" deleted\n');
    const missing = t.io();
    assert.equal(await runDeleteCommand(["cm/a"], missing), 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): configmaps "a" not found\n');
  });

  it("waits until a finalizer is removed before it returns", async () => {
    await t.server.call(
      "PATCH",
      `${configMaps}/a`,
      { metadata: { finalizers: ["example.com/hold"] } },
      "application/merge-patch+json",
    );
    const io = capturedIo(t.env, t.server.wallClock);
    let finished = false;
    const deleting = runDeleteCommand(["configmap", "a"], io).then((code) => {
      finished = true;
      return code;
    });
    for (let i = 0; i < 200 && !io.stdout.includes("deleted"); i++) await t.server.wallClock.sleep(5);
    await t.server.wallClock.sleep(50);
    assert.equal(finished, false, "still waiting while the finalizer holds the object");
    await t.server.call("PATCH", `${configMaps}/a`, { metadata: { finalizers: null } }, "application/merge-patch+json");
    assert.equal(await deleting, 0, io.stderr);
  });

  it("gives up after --timeout", async () => {
    await t.server.call(
      "PATCH",
      `${configMaps}/b`,
      { metadata: { finalizers: ["example.com/hold"] } },
      "application/merge-patch+json",
    );
    const io = capturedIo(t.env, t.server.wallClock);
    assert.equal(await runDeleteCommand(["configmap", "b", "--timeout", "0"], io), 1);
    assert.equal(io.stderr, 'error: timed out waiting for configmap "b" to be deleted\n');
  });
});
