import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type AuthTestServer,
  adminToken,
  nobodyToken,
  startAuthTestServer,
} from "../../apiserver/auth/auth-test-server.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { fetchTrusting } from "../../testing/fetch-trusting.ts";
import { liveStreamEndpoint } from "./live-stream-endpoint.ts";
import type { LiveLine } from "./live-stream-protocol.ts";

const clock = new RealClock();
/** Patience on a loaded machine, not a performance claim. */
const lineTimeoutMs = 20_000;

const rbac = "rbac.authorization.k8s.io";

function pod(name: string) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default" },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  };
}

/** An open stream: the lines read so far, a wait for one, and a way to hang up. */
interface Stream {
  status: number;
  lines: LiveLine[];
  waitFor(what: string, test: (line: LiveLine) => boolean): Promise<LiveLine>;
  close(): void;
}

async function openStream(t: AuthTestServer, token: string, query: string): Promise<Stream> {
  const abort = new AbortController();
  // Over TLS, trusting the test server's CA: tokens travel over TLS only.
  const response = await fetchTrusting(t.caPem)(`${t.secureUrl}/apis/kvol.io/v1alpha1/livestream?${query}`, {
    headers: { Authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const lines: LiveLine[] = [];
  if (response.status === 200 && response.body !== null) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      let pending = "";
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          pending += value;
          const parts = pending.split("\n");
          pending = parts.pop() ?? "";
          for (const part of parts) lines.push(JSON.parse(part) as LiveLine);
        }
      } catch (error) {
        if (!abort.signal.aborted) throw error;
      }
    })();
  } else {
    lines.push({ resource: "debug", type: "UNREADABLE", component: "", message: await response.text() });
  }
  return {
    status: response.status,
    lines,
    async waitFor(what, test) {
      const deadline = clock.now() + lineTimeoutMs;
      for (;;) {
        const found = lines.find(test);
        if (found !== undefined) return found;
        if (clock.now() > deadline) assert.fail(`no line ${what} in ${JSON.stringify(lines).slice(0, 2000)}`);
        await clock.sleep(20);
      }
    },
    close: () => abort.abort(),
  };
}

/** The object a line carries (none for debug lines without one). */
function objectOf(line: LiveLine): { code?: number; message?: string; metadata?: { name?: string } } {
  return "object" in line ? (line.object as { code?: number; message?: string; metadata?: { name?: string } }) : {};
}

const podAdded = (name: string) => (line: LiveLine) =>
  line.resource === "pods" && line.type === "ADDED" && objectOf(line).metadata?.name === name;

describe("the web UI's live stream", () => {
  let t: AuthTestServer;
  before(async () => {
    t = await startAuthTestServer({ extensions: [liveStreamEndpoint({ feedClock: clock })] });
    const binding = await t.call("POST", `/apis/${rbac}/v1/clusterrolebindings`, adminToken, {
      apiVersion: `${rbac}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: "nobody-view" },
      roleRef: { apiGroup: rbac, kind: "ClusterRole", name: "view" },
      subjects: [{ kind: "User", apiGroup: rbac, name: "nobody" }],
    });
    assert.equal(binding.status, 201, JSON.stringify(binding.body));
  });
  after(() => t.close());

  it("carries several watches and the debug states on one connection for an administrator", async () => {
    const stream = await openStream(t, adminToken, "watch=pods&watch=nodes&watch=events&debug=true");
    assert.equal(stream.status, 200);
    try {
      assert.equal((await t.call("POST", "/api/v1/namespaces/default/pods", adminToken, pod("web-0"))).status, 201);
      await stream.waitFor("ADDED pod web-0", podAdded("web-0"));
      const node = await t.call("POST", "/api/v1/nodes", adminToken, {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: "node-1" },
      });
      assert.equal(node.status, 201);
      await stream.waitFor("ADDED node node-1", (line) => line.resource === "nodes" && line.type === "ADDED");
      // This server runs no controllers and reaches no kubelet: the feed says so, per component.
      const kubelet = await stream.waitFor(
        "the kubelet of node-1 unreadable",
        (line) => line.resource === "debug" && line.type === "UNREADABLE" && line.component === "kubelet/node-1",
      );
      assert.match(
        "message" in kubelet ? kubelet.message : "",
        /^\/api\/v1\/nodes\/node-1\/proxy\/debug\/volumemanager: node "node-1" reports no kubelet address and port in its status$/,
      );
      await stream.waitFor(
        "the attach/detach controller unreadable",
        (line) => line.type === "UNREADABLE" && line.component === "attachdetach-controller",
      );
    } finally {
      stream.close();
    }
  });

  it("gives a view user the watches RBAC allows it and says which it may not have", async () => {
    const stream = await openStream(t, nobodyToken, "watch=pods&watch=nodes&watch=persistentvolumes&debug=true");
    assert.equal(stream.status, 200);
    try {
      const nodes = await stream.waitFor(
        "ERROR for nodes",
        (line) => line.resource === "nodes" && line.type === "ERROR",
      );
      assert.deepEqual(
        [objectOf(nodes).code, objectOf(nodes).message],
        [403, 'nodes is forbidden: User "nobody" cannot watch resource "nodes" in API group "" at the cluster scope'],
      );
      await stream.waitFor(
        "ERROR for persistentvolumes",
        (line) => line.resource === "persistentvolumes" && line.type === "ERROR",
      );
      const debug = await stream.waitFor("debug refused", (line) => line.resource === "debug");
      assert.match(
        "message" in debug ? debug.message : "",
        /^nodes is forbidden: User "nobody" cannot get resource "nodes\/proxy" in API group "" at the cluster scope; forbidden: User "nobody" cannot get path "\/debug\/controllers\/"$/,
      );
      // Its pods watch goes on.
      assert.equal((await t.call("POST", "/api/v1/namespaces/default/pods", adminToken, pod("web-1"))).status, 201);
      await stream.waitFor("ADDED pod web-1", podAdded("web-1"));
    } finally {
      stream.close();
    }
  });

  it("resumes from the resourceVersion the page last saw: only what happened since", async () => {
    const listed = await t.call("GET", "/api/v1/pods", adminToken);
    const revision = (listed.body.metadata as { resourceVersion: string }).resourceVersion;
    assert.equal((await t.call("POST", "/api/v1/namespaces/default/pods", adminToken, pod("web-2"))).status, 201);
    const stream = await openStream(t, adminToken, `watch=pods:${revision}`);
    try {
      await stream.waitFor("ADDED pod web-2", podAdded("web-2"));
      assert.deepEqual(
        stream.lines.filter((line) => line.type === "ADDED").map((line) => objectOf(line).metadata?.name),
        ["web-2"],
      );
    } finally {
      stream.close();
    }
  });

  it("ends only the watch whose revision is gone (410), the others go on", async () => {
    const small = await startAuthTestServer({
      extensions: [liveStreamEndpoint({ feedClock: clock })],
      historyWindowRevisions: 5,
    });
    try {
      for (let index = 0; index < 10; index++) {
        const created = await small.call("POST", "/api/v1/namespaces/default/pods", adminToken, pod(`old-${index}`));
        assert.equal(created.status, 201);
      }
      const stream = await openStream(small, adminToken, "watch=pods:1&watch=nodes");
      try {
        const gone = await stream.waitFor(
          "ERROR for pods",
          (line) => line.resource === "pods" && line.type === "ERROR",
        );
        assert.equal(objectOf(gone).code, 410);
        const node = await small.call("POST", "/api/v1/nodes", adminToken, {
          apiVersion: "v1",
          kind: "Node",
          metadata: { name: "node-9" },
        });
        assert.equal(node.status, 201);
        await stream.waitFor(
          "ADDED node node-9",
          (line) => line.resource === "nodes" && objectOf(line).metadata?.name === "node-9",
        );
      } finally {
        stream.close();
      }
    } finally {
      await small.close();
    }
  });

  it("refuses a parameter it cannot honour, naming it", async () => {
    const secrets = await t.call("GET", "/apis/kvol.io/v1alpha1/livestream?watch=secrets", adminToken);
    assert.equal(secrets.status, 400);
    assert.match(String(secrets.body.message), /^watch: "secrets" is not a resource the stream watches; use pods, /);
    const revision = await t.call("GET", "/apis/kvol.io/v1alpha1/livestream?watch=pods:abc", adminToken);
    assert.equal(revision.body.message, 'watch: "pods:abc" must be RESOURCE or RESOURCE:RESOURCEVERSION (a number)');
    const none = await t.call("GET", "/apis/kvol.io/v1alpha1/livestream", adminToken);
    assert.equal(none.body.message, "watch: name at least one resource, or ask for debug=true");
    const anonymous = await t.call("GET", "/apis/kvol.io/v1alpha1/livestream?watch=pods", undefined);
    assert.equal(anonymous.status, 401);
  });
});
