/**
 * The API server in Kubernetes' protobuf, as client-go and kubectl 1.32+ use it: protobuf bodies
 * in, protobuf objects, lists, Status errors and watch frames out, negotiated from Accept as
 * kube-apiserver does; JSON-only and unsupported media types refused in kube-apiserver's words.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { decodeObject, decodeUnknown, decodeWatchEvent, encodeObject } from "../api/protobuf/envelope.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const protobuf = "application/vnd.kubernetes.protobuf";
const clientGoAccept = "application/vnd.kubernetes.protobuf,application/json";
const configMaps = "/api/v1/namespaces/default/configmaps";

interface Answer {
  status: number;
  contentType: string;
  bytes: Buffer;
}

async function send(
  t: TestServer,
  method: string,
  path: string,
  options: { accept?: string; contentType?: string; body?: Uint8Array | string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.accept !== undefined) headers.Accept = options.accept;
  if (options.contentType !== undefined) headers["Content-Type"] = options.contentType;
  const response = await fetch(`${t.server.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

const configMap = (name: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, labels: { app: "web" } },
  data: { greeting: "hello" },
});

describe("protobuf API", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("creates from a protobuf body and answers in protobuf, as kubectl create configmap does", async () => {
    const created = await send(t, "POST", configMaps, {
      accept: clientGoAccept,
      contentType: protobuf,
      body: encodeObject(configMap("c1")),
    });
    assert.equal(created.status, 201);
    assert.equal(created.contentType, protobuf);
    const object = decodeObject(created.bytes) as { metadata: { name: string; uid?: string }; data: unknown };
    assert.equal(object.metadata.name, "c1");
    assert.ok(object.metadata.uid, "the answer is the stored object");
    assert.deepEqual(object.data, { greeting: "hello" });
    const stored = await t.call("GET", `${configMaps}/c1`);
    assert.deepEqual(stored.body.data, { greeting: "hello" });
  });

  it("updates from a protobuf body", async () => {
    await t.call("POST", configMaps, configMap("c1"));
    const changed = { ...configMap("c1"), data: { greeting: "bonjour" } };
    const updated = await send(t, "PUT", `${configMaps}/c1`, {
      accept: protobuf,
      contentType: protobuf,
      body: encodeObject(changed),
    });
    assert.equal(updated.status, 200);
    assert.deepEqual(decodeObject(updated.bytes).data, { greeting: "bonjour" });
  });

  it("serves a list as the kind's List message", async () => {
    await t.call("POST", configMaps, configMap("a"));
    await t.call("POST", configMaps, configMap("b"));
    const listed = await send(t, "GET", configMaps, { accept: clientGoAccept });
    assert.equal(listed.contentType, protobuf);
    assert.deepEqual(decodeUnknown(listed.bytes).typeMeta, { apiVersion: "v1", kind: "ConfigMapList" });
    const list = decodeObject(listed.bytes) as {
      metadata: { resourceVersion: string };
      items: { metadata: { name: string } }[];
    };
    assert.deepEqual(
      list.items.map((item) => item.metadata.name),
      ["a", "b"],
    );
    assert.match(list.metadata.resourceVersion, /^\d+$/);
  });

  it("answers a patch (JSON body) in protobuf when Accept asks for it", async () => {
    await t.call("POST", configMaps, configMap("c1"));
    const patched = await send(t, "PATCH", `${configMaps}/c1`, {
      accept: clientGoAccept,
      contentType: "application/strategic-merge-patch+json",
      body: JSON.stringify({ data: { extra: "1" } }),
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.contentType, protobuf);
    assert.deepEqual(decodeObject(patched.bytes).data, { greeting: "hello", extra: "1" });
  });

  it("sends Status errors in protobuf to a client that prefers it, and in JSON otherwise", async () => {
    const missing = await send(t, "GET", `${configMaps}/nope`, { accept: clientGoAccept });
    assert.equal(missing.status, 404);
    assert.equal(missing.contentType, protobuf);
    const status = decodeObject(missing.bytes);
    assert.equal(status.kind, "Status");
    assert.equal(status.reason, "NotFound");
    assert.equal(status.code, 404);
    assert.equal(status.message, 'configmaps "nope" not found');
    const asJson = await send(t, "GET", `${configMaps}/nope`, { accept: "application/json" });
    assert.equal(asJson.contentType, "application/json");
    assert.equal(JSON.parse(asJson.bytes.toString()).reason, "NotFound");
  });

  it("refuses a body type it does not read with kube-apiserver's 415", async () => {
    const refused = await send(t, "POST", configMaps, { contentType: "text/plain", body: "c1" });
    assert.equal(refused.status, 415);
    assert.equal(
      JSON.parse(refused.bytes.toString()).message,
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
  });

  it("refuses an undecodable protobuf body with a 400 and stores nothing", async () => {
    const refused = await send(t, "POST", configMaps, { contentType: protobuf, body: '{"kind":"ConfigMap"}' });
    assert.equal(refused.status, 400);
    assert.match(JSON.parse(refused.bytes.toString()).message, /expected prefix \[107 56 115 0\]/);
    const list = await t.call("GET", configMaps);
    assert.deepEqual(list.body.items, []);
  });

  it("negotiates Accept by q-value and specificity, and answers 406 when nothing is acceptable", async () => {
    await t.call("POST", configMaps, configMap("c1"));
    const path = `${configMaps}/c1`;
    const preferJson = await send(t, "GET", path, { accept: `${protobuf};q=0.5,application/json` });
    assert.equal(preferJson.contentType, "application/json");
    const preferProtobuf = await send(t, "GET", path, { accept: `application/json;q=0.9,${protobuf}` });
    assert.equal(preferProtobuf.contentType, protobuf);
    const yaml = await send(t, "GET", path, { accept: "application/yaml" });
    assert.equal(yaml.contentType, "application/yaml");
    assert.match(yaml.bytes.toString(), /^apiVersion: v1\nkind: ConfigMap\n/m);
    const wildcard = await send(t, "GET", path, { accept: "*/*" });
    assert.equal(wildcard.contentType, "application/json");
    const none = await send(t, "GET", path, { accept: "text/html" });
    assert.equal(none.status, 406);
    assert.equal(
      JSON.parse(none.bytes.toString()).message,
      "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
  });

  it("passes over a protobuf Table (kube-apiserver serves Tables in JSON only) for the next range", async () => {
    await t.call("POST", configMaps, configMap("c1"));
    const answer = await send(t, "GET", configMaps, {
      accept: `${protobuf};as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json`,
    });
    assert.equal(answer.contentType, "application/json");
    assert.equal(JSON.parse(answer.bytes.toString()).kind, "Table");
  });

  it("serves metadata only, in protobuf, to client-go's metadata client (as=PartialObjectMetadataList)", async () => {
    await t.call("POST", configMaps, configMap("a"));
    const metadataAccept = `${protobuf};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`;
    const listed = await send(t, "GET", configMaps, { accept: metadataAccept });
    assert.equal(listed.contentType, protobuf);
    const list = decodeObject(listed.bytes) as {
      kind: string;
      items: { metadata: { name: string; labels: unknown }; data?: unknown }[];
    };
    assert.equal(list.kind, "PartialObjectMetadataList");
    assert.deepEqual(list.items[0]?.metadata.labels, { app: "web" });
    assert.equal(list.items[0]?.data, undefined, "no data, only metadata");
    const one = await send(t, "GET", `${configMaps}/a`, { accept: metadataAccept });
    assert.equal(one.status, 406);
    assert.equal(
      decodeObject(one.bytes).message,
      "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.ConfigMap)",
    );
  });

  it("deletes with a protobuf DeleteOptions body typed with the group version, as client-go sends it", async () => {
    await t.call("POST", configMaps, configMap("c1"));
    const options = encodeObject({ apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds: 0, dryRun: ["All"] });
    const dryRun = await send(t, "DELETE", `${configMaps}/c1`, {
      accept: clientGoAccept,
      contentType: protobuf,
      body: options,
    });
    assert.equal(dryRun.status, 200);
    assert.equal(
      (await t.call("GET", `${configMaps}/c1`)).status,
      200,
      "dryRun=All from the protobuf body deleted nothing",
    );
  });

  it("evicts a pod through pods/eviction with a protobuf Eviction, answering a Success Status", async () => {
    await t.call("POST", "/api/v1/namespaces/default/pods", testPod("default", "web-0"));
    const eviction = encodeObject({
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "web-0", namespace: "default" },
      deleteOptions: { gracePeriodSeconds: 0 },
    });
    const evicted = await send(t, "POST", "/api/v1/namespaces/default/pods/web-0/eviction", {
      accept: clientGoAccept,
      contentType: protobuf,
      body: eviction,
    });
    assert.equal(evicted.status, 201);
    const status = decodeObject(evicted.bytes);
    assert.equal(status.status, "Success");
    assert.equal((await t.call("GET", "/api/v1/namespaces/default/pods/web-0")).status, 404);
    const again = await send(t, "POST", "/api/v1/namespaces/default/pods/web-0/eviction", {
      contentType: protobuf,
      body: eviction,
    });
    assert.equal(again.status, 404);
    const wrongName = await t.call("POST", "/api/v1/namespaces/default/pods/other/eviction", {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "web-0" },
    });
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.body.message, "name in URL does not match name in Eviction object");
  });

  it("lists pods/eviction in discovery with its policy/v1 Eviction kind, where kubectl drain looks", async () => {
    const resources = (await t.call("GET", "/api/v1")).body.resources as { name: string }[];
    assert.deepEqual(
      resources.find((resource) => resource.name === "pods/eviction"),
      {
        name: "pods/eviction",
        singularName: "",
        namespaced: true,
        group: "policy",
        version: "v1",
        kind: "Eviction",
        verbs: ["create"],
      },
    );
  });
});

interface Frame {
  type: string;
  object: Record<string, unknown>;
}

/** Splits a protobuf watch stream into its length-prefixed frames and decodes each WatchEvent. */
function framesOf(stream: Buffer): Frame[] {
  const frames: Frame[] = [];
  let offset = 0;
  while (offset + 4 <= stream.length) {
    const length = stream.readUInt32BE(offset);
    const frame = stream.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    assert.deepEqual(decodeUnknown(frame).typeMeta, { apiVersion: "v1", kind: "WatchEvent" });
    frames.push(decodeWatchEvent(frame));
  }
  assert.equal(offset, stream.length, "the stream ends on a frame boundary");
  return frames;
}

describe("protobuf watch", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("frames each event as a 4-byte big-endian length and an enveloped WatchEvent holding the enveloped object", async () => {
    await t.call("POST", configMaps, configMap("first"));
    const abort = new AbortController();
    const response = await fetch(`${t.server.url}${configMaps}?watch=1&resourceVersion=0`, {
      headers: { Accept: clientGoAccept },
      signal: abort.signal,
    });
    assert.equal(response.headers.get("content-type"), `${protobuf};stream=watch`);
    const chunks: Buffer[] = [];
    const reading = (async () => {
      try {
        for await (const chunk of response.body ?? []) chunks.push(Buffer.from(chunk as Uint8Array));
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      }
    })();
    await t.call("POST", configMaps, configMap("second"));
    await t.call("DELETE", `${configMaps}/first`);
    for (let spin = 0; spin < 400 && framesOfSoFar(chunks).length < 3; spin++) await t.wallClock.sleep(5);
    abort.abort();
    await reading;
    const frames = framesOf(Buffer.concat(chunks));
    assert.deepEqual(
      frames.map((frame) => `${frame.type} ${(frame.object.metadata as { name: string }).name}`),
      ["ADDED first", "ADDED second", "DELETED first"],
    );
    assert.deepEqual(frames[1]?.object.data, { greeting: "hello" });
  });

  it("sends a compacted resourceVersion's 410 as one ERROR frame carrying a protobuf Status", async () => {
    const small = await startTestServer({ historyWindowRevisions: 2 });
    try {
      const first = await small.call("POST", configMaps, configMap("c0"));
      const from = (first.body.metadata as { resourceVersion: string }).resourceVersion;
      for (let i = 1; i < 6; i++) await small.call("POST", configMaps, configMap(`c${i}`));
      const answer = await send(small, "GET", `${configMaps}?watch=1&resourceVersion=${from}`, {
        accept: clientGoAccept,
      });
      assert.equal(answer.status, 200);
      const frames = framesOf(answer.bytes);
      assert.equal(frames.length, 1);
      assert.equal(frames[0]?.type, "ERROR");
      assert.equal(frames[0]?.object.kind, "Status");
      assert.equal(frames[0]?.object.code, 410);
      assert.equal(frames[0]?.object.reason, "Gone");
    } finally {
      await small.close();
    }
  });
});

function framesOfSoFar(chunks: readonly Buffer[]): Frame[] {
  const stream = Buffer.concat(chunks);
  let offset = 0;
  let complete = 0;
  while (offset + 4 <= stream.length && offset + 4 + stream.readUInt32BE(offset) <= stream.length) {
    offset += 4 + stream.readUInt32BE(offset);
    complete++;
  }
  return framesOf(stream.subarray(0, offset)).slice(0, complete);
}
