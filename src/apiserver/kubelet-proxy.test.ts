import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Node, Pod } from "kubernetes-types/core/v1.js";
import { testPod } from "../api/client/testing/test-api.ts";
import type { KObject } from "../api/objects.ts";
import { resourceForKind } from "../api/resources.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import { KubeletServer, type KubeletStreaming, StreamRefused } from "../kubelet/server/kubelet-server.ts";
import { openStream } from "../kubelet/server/testing/stream-client.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { Rng } from "../runtime/rng.ts";
import { fetchTrusting } from "../testing/fetch-trusting.ts";
import { StaticTokenAuthenticator } from "./auth/token-authenticator.ts";
import { type RunningApiServer, startApiServer } from "./server.ts";
import { testTls } from "./testing/test-tls.ts";
import { selfSignedCertificate } from "./tls/self-signed-certificate.ts";

const adminToken = "admin-token";
const nodeToken = "node-a-token";
const pods = "/api/v1/namespaces/default/pods";
/** 2026-01-02T03:04:05Z */
const logTimeMs = 1_767_323_045_000;

/** A node whose only container echoes and exits as told, and reads its stdin for `cat`. */
function fakeNode(clock: RealClock, stored: () => Pod | undefined): KubeletStreaming {
  return {
    clock,
    pod: (namespace, name) => {
      const pod = stored();
      return pod?.metadata?.namespace === namespace && pod.metadata?.name === name ? pod : undefined;
    },
    containerLog: async () => ({
      entries: [
        { timeMs: logTimeMs, stream: "stdout", text: "first" },
        { timeMs: logTimeMs + 1_000, stream: "stdout", text: "second" },
      ],
      running: false,
    }),
    checkRunning: (_pod, container) => {
      if (container !== "main") throw new StreamRefused(500, `container not found ("${container}")`);
    },
    exec: async (_pod, _container, command, streams) => {
      const [program, ...args] = command;
      if (program === "echo") streams.stdout?.write(`${args.join(" ")}\n`);
      if (program === "fail") {
        streams.stderr?.write("failing\n");
        return { exitCode: Number(args[0]) };
      }
      if (program === "cat" && streams.stdin !== undefined) {
        const input = streams.stdin;
        await new Promise<void>((done) => {
          input.on("data", (chunk: Buffer) => streams.stdout?.write(chunk));
          input.on("end", done);
        });
      }
      return { exitCode: 0 };
    },
    attach: async () => ({ exitCode: 0 }),
  };
}

describe("the API server reaches a node's kubelet for logs and exec", () => {
  const clock = new RealClock();
  const logger = new Logger({ clock, sink: new MemorySink(), level: "debug" });
  const store = createMemoryStore({ clock, random: new Rng(1).stream("store") });
  let server: RunningApiServer;
  /** The server over TLS: tokens travel over TLS only. */
  let apiUrl: string;
  const serverTls = testTls(clock.now());
  const fetch = fetchTrusting(serverTls.caPem);
  let kubelet: KubeletServer;
  let pod: Pod | undefined;
  const admin = { Authorization: `Bearer ${adminToken}` };

  before(async () => {
    const authenticator = new StaticTokenAuthenticator([
      { token: adminToken, user: { name: "admin", uid: "", groups: ["system:masters"] } },
      { token: nodeToken, user: { name: "system:node:node-a", uid: "", groups: ["system:nodes"] } },
    ]);
    server = await startApiServer({ store, clock, logger, port: 0, authenticator, tls: serverTls.tls });
    apiUrl = server.secureUrl ?? "";
    const tls = selfSignedCertificate({ commonName: "node-a@kubelet", hosts: ["127.0.0.1"], nowMs: clock.now() });
    kubelet = new KubeletServer({ token: nodeToken, tls, logger });
    const port = await kubelet.listen(0, "127.0.0.1");
    kubelet.serve(fakeNode(clock, () => pod));
    const nodeType = resourceForKind("Node");
    assert.ok(nodeType !== undefined);
    const node: Node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: "node-a" },
      status: {
        addresses: [{ type: "InternalIP", address: "127.0.0.1" }],
        daemonEndpoints: { kubeletEndpoint: { Port: port } },
      },
    };
    await store.create(nodeType, node as KObject);
    const created = await fetch(`${apiUrl}${pods}`, {
      method: "POST",
      headers: { ...admin, "Content-Type": "application/json" },
      body: JSON.stringify(testPod("default", "web", "node-a")),
    });
    pod = (await created.json()) as Pod;
    await fetch(`${apiUrl}${pods}`, {
      method: "POST",
      headers: { ...admin, "Content-Type": "application/json" },
      body: JSON.stringify(testPod("default", "pending")),
    });
  });
  after(async () => {
    await kubelet.close();
    await server.close();
  });

  it("serves pods/log from the kubelet's containerLogs, with tailLines and timestamps passed on", async () => {
    const all = await fetch(`${apiUrl}${pods}/web/log`, { headers: admin });
    assert.equal(all.status, 200);
    assert.equal(await all.text(), "first\nsecond\n");
    const last = await fetch(`${apiUrl}${pods}/web/log?tailLines=1&timestamps=true`, { headers: admin });
    assert.equal(await last.text(), "2026-01-02T03:04:06Z second\n");
  });

  it("runs exec through the kubelet over v5.channel.k8s.io: output, exit code, stdin until closed", async () => {
    const url = (query: string) => `${apiUrl}${pods}/web/exec?${query}`;
    const echo = await openStream(url("command=echo&command=hello&stdout=true&stderr=true"), admin);
    assert.ok("session" in echo);
    assert.equal(echo.session.protocol, "v5.channel.k8s.io");
    assert.deepEqual(await echo.session.finished, {
      stdout: "hello\n",
      stderr: "",
      status: { metadata: {}, status: "Success" },
    });

    const fail = await openStream(url("command=fail&command=3&stdout=true&stderr=true"), admin);
    assert.ok("session" in fail);
    const failed = await fail.session.finished;
    assert.equal(failed.stderr, "failing\n");
    assert.equal(failed.status?.reason, "NonZeroExitCode");
    assert.deepEqual(failed.status?.details, { causes: [{ reason: "ExitCode", message: "3" }] });

    const cat = await openStream(url("command=cat&stdin=true&stdout=true"), admin);
    assert.ok("session" in cat);
    cat.session.sendStdin("echoed back\n");
    cat.session.closeStdin();
    assert.equal((await cat.session.finished).stdout, "echoed back\n");
  });

  it("speaks v4.channel.k8s.io to a client that offers only it", async () => {
    const answer = await openStream(`${apiUrl}${pods}/web/exec?command=echo&command=v4&stdout=true`, admin, [
      "v4.channel.k8s.io",
    ]);
    assert.ok("session" in answer);
    assert.equal(answer.session.protocol, "v4.channel.k8s.io");
    assert.equal((await answer.session.finished).stdout, "v4\n");
  });

  it("refuses with Kubernetes' words: no host assigned, unknown container, container not running", async () => {
    const refusal = async (path: string) => {
      const answer = await openStream(`${apiUrl}${pods}/${path}`, admin);
      assert.ok("refused" in answer);
      return { status: answer.refused.status, message: JSON.parse(answer.refused.body).message };
    };
    assert.deepEqual(await refusal("pending/exec?command=ls&stdout=true"), {
      status: 400,
      message: "pod pending does not have a host assigned",
    });
    assert.deepEqual(await refusal("web/exec?command=ls&stdout=true&container=nope"), {
      status: 400,
      message: "container nope is not valid for pod web",
    });
  });

  it("passes the kubelet's stats/summary through the node proxy, to administrators only", async () => {
    const summary = { node: { nodeName: "node-a", startTime: "2026-01-02T03:04:05Z" }, pods: [] };
    const path = "/api/v1/nodes/node-a/proxy/stats/summary";
    const starting = await fetch(`${apiUrl}${path}`, { headers: admin });
    assert.equal(starting.status, 500);
    assert.match(await starting.text(), /the kubelet is starting/);
    kubelet.serveStatsSummary(async () => summary);
    const answer = await fetch(`${apiUrl}${path}`, { headers: admin });
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), summary);
    const asNode = await fetch(`${apiUrl}${path}`, { headers: { Authorization: `Bearer ${nodeToken}` } });
    assert.equal(asNode.status, 403);
  });

  it("the kubelet answers 401 to a caller without the node's token", async () => {
    const port = kubelet.port;
    const answer = await openStream(`https://127.0.0.1:${port}/exec/default/web/main?command=ls&output=1`, {
      Authorization: "Bearer wrong",
    });
    assert.ok("refused" in answer);
    assert.equal(answer.refused.status, 401);
    const logs = await openStream(`https://127.0.0.1:${port}/containerLogs/default/web/main`, {});
    assert.ok("refused" in logs);
    assert.equal(logs.refused.status, 401);
  });
});
