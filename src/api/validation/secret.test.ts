import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

/** The Ceph key Kubernetes' RBD plugin reads (seed 004's ceph-secret). */
const secret: Record<string, unknown> & { metadata: Record<string, unknown> } = {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "ceph-secret", namespace: "sock-shop" },
  type: "kubernetes.io/rbd",
  data: { key: "QVFBOWRPOWJBQUFBQUJBQW1kZ2pOa0tBaUJHMlhwd1FsNUJ3R1E9PQ==" },
};

describe("Secret", () => {
  it("accepts base64 data", () => {
    assert.deepEqual(problemsOf("Secret", secret), []);
  });

  it("says where a value stops being base64, without showing the value", () => {
    const plain = changed(secret, (copy) => {
      copy.data = { password: "hunter2!" };
    });
    assert.deepEqual(problemsOf("Secret", plain), [
      'data[password]: Invalid value: "password": illegal base64 data at input byte 7',
    ]);
  });

  it("requires keys that can be file names", () => {
    const slashed = changed(secret, (copy) => {
      copy.data = { "db/password": "c2VjcmV0" };
      copy.stringData = { "..": "x" };
    });
    assert.deepEqual(problemsOf("Secret", slashed), [
      "data[db/password]: Invalid value: \"db/password\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      "stringData[..]: Invalid value: \"..\": must not be '..'",
    ]);
  });

  it("requires the keys of well-known types", () => {
    const tls = changed(secret, (copy) => {
      copy.type = "kubernetes.io/tls";
      copy.data = { "tls.crt": "Y2VydA==" };
    });
    assert.deepEqual(problemsOf("Secret", tls), ["data[tls.key]: Required value"]);
    const basicAuth = changed(secret, (copy) => {
      copy.type = "kubernetes.io/basic-auth";
      copy.stringData = { password: "x" };
      copy.data = {};
    });
    assert.deepEqual(problemsOf("Secret", basicAuth), []);
  });

  it("limits the total size to 1 MiB", () => {
    const huge = changed(secret, (copy) => {
      copy.stringData = { blob: "x".repeat(1024 * 1024 + 1) };
    });
    assert.deepEqual(problemsOf("Secret", huge), ["data: Too long: must have at most 1048576 bytes"]);
  });

  it("keeps an immutable secret and its type", () => {
    const sealed = changed(secret, (copy) => {
      copy.immutable = true;
    });
    const edited = changed(sealed, (copy) => {
      copy.data = { key: "b3RoZXI=" };
      copy.type = "Opaque";
    });
    assert.deepEqual(problemsOf("Secret", edited, sealed), [
      'type: Invalid value: "Opaque": field is immutable',
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    assert.deepEqual(
      problemsOf(
        "Secret",
        changed(secret, (copy) => {
          copy.data = { key: "b3RoZXI=" };
        }),
        secret,
      ),
      [],
    );
  });
});
