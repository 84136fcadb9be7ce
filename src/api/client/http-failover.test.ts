/**
 * `kvol node --server A,B`: a client given several API servers keeps working when the one it uses
 * cannot be reached, and stays with the one that answered.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startTestServer } from "../../apiserver/test-server.ts";
import { HttpClient } from "./http-client.ts";

describe("HttpClient with several API servers", () => {
  it("moves to the next server when one cannot be reached, and stays there", async () => {
    const first = await startTestServer({ seed: 1 });
    const second = await startTestServer({ seed: 2 });
    let firstOpen = true;
    try {
      await second.client.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "only-on-b" } });
      const client = new HttpClient({ url: `${first.server.url},${second.server.url}` });
      await assert.rejects(client.namespaces.get("", "only-on-b"), { reason: "NotFound" });
      await first.close();
      firstOpen = false;
      assert.equal((await client.namespaces.get("", "only-on-b")).metadata?.name, "only-on-b");
      // Created on the second server: the client stayed with it.
      await client.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "made-after" } });
      assert.equal((await second.client.namespaces.get("", "made-after")).metadata?.name, "made-after");
    } finally {
      if (firstOpen) await first.close();
      await second.close();
    }
  });

  it("answers the last connection error when no server can be reached", async () => {
    const server = await startTestServer();
    const url = server.server.url;
    await server.close();
    const client = new HttpClient({ url: `${url},${url}` });
    await assert.rejects(client.namespaces.get("", "default"), (error: Error) => {
      assert.equal((error.cause as { code?: string }).code, "ECONNREFUSED");
      return true;
    });
  });
});
