import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Metrics } from "../runtime/metrics.ts";
import { adminToken, nodeATokenValue, startAuthTestServer } from "./auth/auth-test-server.ts";

/** The sample line of `name` with exactly these labels (in Kubernetes' label order), or undefined. */
function sample(text: string, line: string): string | undefined {
  return text.split("\n").find((candidate) => candidate.startsWith(`${line} `));
}

describe("/metrics on the API server", () => {
  it("counts each request in apiserver_request_total by verb, resource, scope and code", async () => {
    const metrics = new Metrics();
    const api = await startAuthTestServer({ metrics });
    try {
      await api.call("GET", "/api/v1/namespaces/default/pods", adminToken);
      await api.call("GET", "/api/v1/namespaces/default/pods", adminToken);
      await api.call("GET", "/api/v1/namespaces/default/pods/missing", adminToken);
      await api.call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", adminToken, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "settings" },
      });
      const answer = await api.call("GET", "/metrics", adminToken);
      assert.equal(answer.status, 200);
      const text = String(answer.body.text);
      assert.match(text, /^# HELP apiserver_request_total Counter of apiserver requests broken out/m);
      assert.equal(
        sample(
          text,
          'apiserver_request_total{verb="LIST",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver",code="200"}',
        )?.endsWith(" 2"),
        true,
        text,
      );
      assert.ok(
        sample(
          text,
          'apiserver_request_total{verb="GET",dry_run="",group="",version="v1",resource="pods",subresource="",scope="resource",component="apiserver",code="404"}',
        )?.endsWith(" 1"),
      );
      assert.ok(
        sample(
          text,
          'apiserver_request_total{verb="POST",dry_run="All",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="201"}',
        )?.endsWith(" 1"),
      );
    } finally {
      await api.close();
    }
  });

  it("refuses a node agent, as kube-apiserver refuses system:nodes the path /metrics", async () => {
    const api = await startAuthTestServer({ metrics: new Metrics() });
    try {
      const answer = await api.call("GET", "/metrics", nodeATokenValue);
      assert.equal(answer.status, 403);
      assert.equal(answer.body.message, 'forbidden: User "system:node:node-a" cannot get path "/metrics"');
    } finally {
      await api.close();
    }
  });

  it("keeps the counts of two servers apart (a registry per cluster)", async () => {
    const first = await startAuthTestServer({ metrics: new Metrics() });
    const second = await startAuthTestServer({ metrics: new Metrics() });
    try {
      await first.call("GET", "/api/v1/nodes", adminToken);
      const text = String((await second.call("GET", "/metrics", adminToken)).body.text);
      assert.doesNotMatch(text, /resource="nodes"/);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
