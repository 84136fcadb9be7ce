import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { callRecordOf, redactedSecretValue, redactSecrets, requestSnapshot } from "./call-log.ts";
import { CsiError } from "./errors.ts";
import { csiRpcsOf } from "./rpcs.ts";

describe("call records", () => {
  const stageRpc = csiRpcsOf("Node").find((rpc) => rpc.method === "NodeStageVolume");

  test("secret values are replaced, keys kept, and the request itself left untouched", () => {
    const request = { volumeId: "vol-1", secrets: { username: "admin", password: "hunter2" } };
    assert.deepEqual(redactSecrets(request), {
      volumeId: "vol-1",
      secrets: { username: redactedSecretValue, password: redactedSecretValue },
    });
    assert.equal(request.secrets.password, "hunter2");
    assert.deepEqual(redactSecrets({ volumeId: "vol-1" }), { volumeId: "vol-1" });
  });

  test("a failed call records its code and status message, and the redacted request snapshot", () => {
    assert.ok(stageRpc);
    const request = { volumeId: "vol-1", secrets: { k: "v" } };
    const record = callRecordOf(stageRpc, requestSnapshot(request), {
      error: new CsiError("NotFound", "volume vol-1 does not exist"),
    });
    request.volumeId = "changed after the snapshot";
    assert.deepEqual(record, {
      service: "Node",
      method: "NodeStageVolume",
      request: { volumeId: "vol-1", secrets: { k: redactedSecretValue } },
      error: { code: "NotFound", message: "volume vol-1 does not exist" },
    });
  });
});
