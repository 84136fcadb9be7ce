import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeContinue, encodeContinue } from "./continue-token.ts";

describe("continue tokens", () => {
  it("round-trip the revision and the next key, in Kubernetes' format", () => {
    const token = encodeContinue("/registry/pods/", "/registry/pods/ns/web-1", 42);
    assert.deepEqual(JSON.parse(Buffer.from(token, "base64url").toString()), {
      v: "meta.k8s.io/v1",
      rv: 42,
      start: "ns/web-1\u0000",
    });
    assert.deepEqual(decodeContinue("/registry/pods/", token), {
      revision: 42,
      startKey: "/registry/pods/ns/web-1\u0000",
    });
  });

  it("refuses tokens it did not issue or that leave the prefix", () => {
    const forge = (body: object): string => Buffer.from(JSON.stringify(body)).toString("base64url");
    assert.throws(() => decodeContinue("/p/", "%%%"), /continue key is not valid/);
    assert.throws(() => decodeContinue("/p/", forge({ v: "other", rv: 1, start: "a" })), /token version/);
    assert.throws(() => decodeContinue("/p/", forge({ v: "meta.k8s.io/v1", rv: 0, start: "a" })), /no valid revision/);
    assert.throws(
      () => decodeContinue("/p/", forge({ v: "meta.k8s.io/v1", rv: 3, start: "../x" })),
      /leaves the list prefix/,
    );
  });
});
