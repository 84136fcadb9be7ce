import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

const configMap: Record<string, unknown> = {
  metadata: { name: "db-config", namespace: "default" },
  data: { "postgresql.conf": "max_connections = 100\n" },
  binaryData: { "logo.png": "iVBORw0KGgo=" },
};

describe("ConfigMap", () => {
  it("accepts text and binary data", () => {
    assert.deepEqual(problemsOf("ConfigMap", configMap), []);
  });

  it("refuses a key in both data and binaryData", () => {
    const twice = changed(configMap, (copy) => {
      copy.binaryData = { "postgresql.conf": "eA==" };
    });
    assert.deepEqual(problemsOf("ConfigMap", twice), [
      'data[postgresql.conf]: Invalid value: "postgresql.conf": duplicate of key present in binaryData',
    ]);
  });

  it("requires base64 binary data and string text data", () => {
    const odd = changed(configMap, (copy) => {
      copy.binaryData = { "logo.png": "not base64" };
      copy.data = { replicas: 3 };
    });
    assert.deepEqual(problemsOf("ConfigMap", odd), [
      'data[replicas]: Invalid value: "integer": data[replicas] in body must be of type string: "integer"',
      'binaryData[logo.png]: Invalid value: "logo.png": illegal base64 data at input byte 3',
    ]);
  });

  it("keeps an immutable config map", () => {
    const sealed = changed(configMap, (copy) => {
      copy.immutable = true;
    });
    const unsealed = changed(configMap, (copy) => {
      copy.immutable = false;
    });
    assert.deepEqual(problemsOf("ConfigMap", unsealed, sealed), [
      "immutable: Forbidden: field is immutable when `immutable` is set",
    ]);
  });
});
