import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type AuthTestServer,
  adminToken,
  nobodyToken,
  startAuthTestServer,
} from "../../apiserver/auth/auth-test-server.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { uiEndpoint } from "./ui-endpoint.ts";
import { whyEndpoint } from "./why-endpoint.ts";

describe("the web UI's endpoints on an API server with tokens", () => {
  let fixture: AuthTestServer;
  before(async () => {
    let url = "";
    let caPem = "";
    const clock = new RealClock();
    fixture = await startAuthTestServer({
      extensions: [
        uiEndpoint(),
        whyEndpoint({ serverUrl: () => url, serverCaPem: () => caPem, nowMs: () => clock.now() }),
      ],
    });
    url = fixture.secureUrl;
    caPem = fixture.caPem;
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "web-0", namespace: "default" },
      spec: { containers: [{ name: "web", image: "nginx" }] },
    };
    const created = await fixture.call("POST", "/api/v1/namespaces/default/pods", adminToken, pod);
    assert.equal(created.status, 201);
  });
  after(() => fixture.close());

  it("serves the page without credentials: it holds no cluster data", async () => {
    const page = await fixture.call("GET", "/ui/", undefined);
    assert.equal(page.status, 200);
    assert.match(String(page.body.text), /<div id="app"><\/div>/);
    const script = await fetch(`${fixture.server.url}/ui/app.js`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    await script.text();
  });

  it("serves nothing but its own files", async () => {
    for (const path of ["/ui/../package.json", "/ui/%2e%2e/package.json", "/ui/sub/app.js", "/ui/vite.config.ts"]) {
      const answer = await fixture.call("GET", path, undefined);
      assert.notEqual(answer.status, 200, path);
    }
  });

  it("tells kvol why with the caller's own rights: an administrator reads the chain, a user without a role is refused", async () => {
    const path = "/apis/kvol.io/v1alpha1/why?kind=pod&namespace=default&name=web-0";
    const admin = await fixture.call("GET", path, adminToken);
    assert.equal(admin.status, 200);
    const links = admin.body.links as { subject: string; state: string }[];
    assert.equal(links[0]?.subject, "pod default/web-0");
    assert.equal((await fixture.call("GET", path, undefined)).status, 401);
    const nobody = await fixture.call("GET", path, nobodyToken);
    assert.equal(nobody.status, 403);
    assert.match(String(nobody.body.message), /User "nobody" cannot get/);
  });

  it("names the field of a bad question", async () => {
    const kind = await fixture.call("GET", "/apis/kvol.io/v1alpha1/why?kind=secret&name=x", adminToken);
    assert.equal(kind.status, 400);
    assert.match(String(kind.body.message), /^kind: must be one of pod, pvc, pv, volumeattachment, node, not "secret"/);
    const missing = await fixture.call(
      "GET",
      "/apis/kvol.io/v1alpha1/why?kind=pod&namespace=default&name=web-9",
      adminToken,
    );
    assert.equal(missing.status, 404);
    assert.match(String(missing.body.message), /pods "web-9" not found/);
  });
});
