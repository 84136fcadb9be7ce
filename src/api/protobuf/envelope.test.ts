import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeObject, decodeUnknown, encodeObject, hasProtobuf } from "./envelope.ts";

/** A length-delimited field: tag byte, length byte, bytes (every part here is shorter than 128 bytes). */
function field(tag: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag, payload.length]), payload]);
}

const text = (value: string): Buffer => Buffer.from(value, "utf8");

describe("Kubernetes' protobuf envelope", () => {
  it("writes a ConfigMap exactly as kube-apiserver does: k8s\\0, Unknown{typeMeta, raw, contentEncoding, contentType}", () => {
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "v" } };
    // ConfigMap: metadata = 1 (ObjectMeta: name = 1), data = 2 (map entry: key = 1, value = 2).
    const raw = Buffer.concat([
      field(0x0a, field(0x0a, text("a"))),
      field(0x12, Buffer.concat([field(0x0a, text("k")), field(0x12, text("v"))])),
    ]);
    // Unknown: typeMeta = 1 (apiVersion = 1, kind = 2), raw = 2, contentEncoding = 3, contentType = 4.
    const unknown = Buffer.concat([
      field(0x0a, Buffer.concat([field(0x0a, text("v1")), field(0x12, text("ConfigMap"))])),
      field(0x12, raw),
      field(0x1a, Buffer.alloc(0)),
      field(0x22, Buffer.alloc(0)),
    ]);
    const expected = Buffer.concat([Buffer.from("k8s\0", "latin1"), unknown]);
    assert.equal(Buffer.from(encodeObject(configMap)).toString("hex"), expected.toString("hex"));
    assert.deepEqual(decodeObject(expected), configMap);
  });

  it("keeps Secret bytes as bytes on the wire and base64 in JSON", () => {
    const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: { pw: "aHVudGVyMg==" } };
    const encoded = Buffer.from(encodeObject(secret));
    assert.ok(encoded.includes(Buffer.from("hunter2")), "the secret's bytes travel raw, not as base64 text");
    assert.deepEqual(decodeObject(encoded), secret);
  });

  it("refuses a body without the magic prefix, in Kubernetes' words", () => {
    assert.throws(
      () => decodeUnknown(Buffer.from('{"kind":"Pod"}')),
      /provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/,
    );
  });

  it("reads an envelope without a type as the kind the URL names", () => {
    const encoded = Buffer.from(encodeObject({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }));
    const untyped = decodeUnknown(encoded);
    const bare = Buffer.concat([Buffer.from("k8s\0", "latin1"), field(0x12, Buffer.from(untyped.raw))]);
    assert.deepEqual(decodeObject(bare, { apiVersion: "v1", kind: "ConfigMap" }), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "x" },
    });
  });

  it("knows DeleteOptions typed with any group version, as client-go sends it", () => {
    assert.ok(hasProtobuf("apps/v1", "DeleteOptions"));
    assert.ok(hasProtobuf("policy/v1", "Eviction"));
    assert.equal(hasProtobuf("example.com/v1", "Widget"), false);
  });
});
