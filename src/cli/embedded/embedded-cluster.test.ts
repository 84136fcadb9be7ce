/**
 * The embedded cluster in this process, on real time: TLS for kubectl with the kubeconfig's CA,
 * the fault endpoint, and no secret in any log line.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { RealClock } from "../../runtime/real-clock.ts";
import { fetchTrusting } from "../../testing/fetch-trusting.ts";
import { capturedIo } from "../client/testing/cli-test-support.ts";
import { runFaultCommand } from "../fault-command.ts";
import { runSpeedCommand } from "../speed-command.ts";
import { StepProgress } from "../step-progress.ts";
import { waitFor } from "../testing/wait-for.ts";
import { EmbeddedCluster } from "./embedded-cluster.ts";
import { faultsPath } from "./fault-endpoint.ts";
import { speedPath } from "./speed-endpoint.ts";

const secretText = "s3cr3t-Value-that-must-never-be-logged";
const secretBytes = "binary-Secret-bytes-never-logged";
const waitMs = 15_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

describe("embedded cluster", () => {
  let dir: string;
  let embedded: EmbeddedCluster;
  let adminToken: string;
  /** fetch trusting the cluster's CA: tokens travel over TLS only. */
  let trusted: ReturnType<typeof fetchTrusting>;
  const output: string[] = [];

  async function call(method: string, path: string, body?: unknown, token = adminToken): Promise<Answer> {
    const response = await trusted(`${embedded.kubeconfigUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : { text } };
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kvol-embedded-"));
    embedded = await EmbeddedCluster.start({
      dataDir: dir,
      ephemeral: true,
      nodeCount: 1,
      port: 0,
      host: "127.0.0.1",
      logLevel: "debug",
      verbose: false,
      progress: new StepProgress(new RealClock(), (text) => output.push(text)),
      onListening: () => undefined,
    });
    adminToken = embedded.dataDir.ensureAdminToken();
    trusted = fetchTrusting(readFileSync(embedded.dataDir.caFile, "utf8"));
  });
  after(async () => {
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes a kubeconfig whose HTTPS address, CA and token reach the server", async () => {
    const config = parse(readFileSync(embedded.kubeconfigPath, "utf8"));
    const cluster = config.clusters[0].cluster;
    assert.match(cluster.server, /^https:\/\/127\.0\.0\.1:\d+$/);
    const ca = Buffer.from(cluster["certificate-authority-data"], "base64").toString();
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpsRequest(
        `${cluster.server}/api/v1/nodes`,
        { ca, headers: { Authorization: `Bearer ${config.users[0].user.token}` } },
        (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      JSON.parse(answer.text).items.map((node: { metadata: { name: string } }) => node.metadata.name),
      ["node-1"],
    );
    assert.ok(
      output.some((line) => line.includes("node-1 started")),
      output.join(""),
    );
  });

  it("injects and heals a fault through the administrator-only endpoint", async () => {
    const listed = await call("GET", faultsPath);
    assert.equal(listed.status, 200);
    assert.ok((listed.body.items as { name: string }[]).some((fault) => fault.name === "node-power-off"));

    const injected = await call("POST", faultsPath, { fault: "node-power-off", params: { node: "node-1" } });
    assert.equal(injected.status, 201, JSON.stringify(injected.body));
    assert.equal(embedded.cluster.kubelet("node-1"), undefined);
    const healed = await call("POST", faultsPath, { fault: "node-power-off", params: { node: "node-1" }, heal: true });
    assert.equal(healed.status, 201, JSON.stringify(healed.body));
    assert.ok(embedded.cluster.kubelet("node-1")?.running);

    // Only KUBECONFIG set, as `kvol up` tells a user to: the command finds the https server and its credentials.
    const io = capturedIo({ KUBECONFIG: embedded.kubeconfigPath }, new RealClock());
    assert.equal(await runFaultCommand(["node-power-off", "node-1"], io), 0, io.stderr);
    assert.equal(embedded.cluster.kubelet("node-1"), undefined);
    assert.equal(await runFaultCommand(["node-power-off", "node-1", "--heal", "--data-dir", dir], io), 0, io.stderr);
    assert.ok(embedded.cluster.kubelet("node-1")?.running);
    assert.equal(io.stdout, "fault node-power-off injected\nfault node-power-off healed\n");

    const unknown = await call("POST", faultsPath, { fault: "no-such-fault" });
    assert.equal(unknown.status, 404);
    assert.match(
      String(unknown.body.message),
      /faults\.kvol\.io "no-such-fault" not found; known faults: .*node-power-off/,
    );
    const badParam = await call("POST", faultsPath, { fault: "node-power-off", params: { nodes: "node-1" } });
    assert.equal(badParam.status, 400);
    assert.match(String(badParam.body.message), /unknown parameter "nodes"/);

    const nodeToken = readFileSync(embedded.dataDir.ensureNodeToken("node-1"), "utf8").trim();
    const asNode = await call("POST", faultsPath, { fault: "node-power-off", params: { node: "node-1" } }, nodeToken);
    assert.equal(asNode.status, 403);
    assert.ok(embedded.cluster.kubelet("node-1")?.running, "a refused fault must change nothing");
  });

  it("changes the clock's speed through kvol speed, for administrators only", async () => {
    const io = capturedIo({ KUBECONFIG: embedded.kubeconfigPath }, new RealClock());
    assert.equal(await runSpeedCommand([], io), 0, io.stderr);
    assert.equal(await runSpeedCommand(["60"], io), 0, io.stderr);
    assert.equal(io.stdout, "speed: 1× (real time)\nspeed: 60×\n");
    assert.equal(embedded.speed, 60);
    const before = embedded.cluster.clock.now();
    await new RealClock().sleep(200);
    assert.ok(embedded.cluster.clock.now() - before >= 6_000, "200 ms of wall time is 12 s of the cluster at 60×");

    const refused = capturedIo({ KUBECONFIG: embedded.kubeconfigPath }, new RealClock());
    assert.equal(await runSpeedCommand(["0"], refused), 2);
    assert.match(refused.stderr, /^error: the speed must be a number from 0.1 to 1000, got "0"/);
    assert.equal(
      (await call("PUT", speedPath, { speed: 5000 })).body.message,
      "speed: the speed must be a number from 0.1 to 1000, got 5000",
    );
    const nodeToken = readFileSync(embedded.dataDir.ensureNodeToken("node-1"), "utf8").trim();
    assert.equal((await call("PUT", speedPath, { speed: 2 }, nodeToken)).status, 403);
    const readByNode = await call("GET", speedPath, undefined, nodeToken);
    assert.equal(readByNode.status, 200, "anyone authenticated may read the speed and the cluster's time");
    assert.match(String(readByNode.body.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // A watch a client opens ends after kube-apiserver's 30 minutes of real time, not of the
    // cluster's: at 1000×, 2.5 s of wall time is 41 minutes of the cluster's.
    assert.equal(await runSpeedCommand(["1000"], io), 0, io.stderr);
    const abort = new AbortController();
    const watch = await trusted(`${embedded.kubeconfigUrl}/api/v1/namespaces/default/configmaps?watch=1`, {
      headers: { Authorization: `Bearer ${adminToken}` },
      signal: abort.signal,
    });
    let watchEnded = false;
    const draining = (async () => {
      try {
        for await (const _chunk of watch.body ?? []) {
          // Nothing is created: only the end of the stream matters.
        }
        watchEnded = true;
      } catch (error) {
        assert.equal((error as Error).name, "AbortError");
      }
    })();
    await new RealClock().sleep(2_500);
    assert.equal(watchEnded, false, "the watch is still open");
    abort.abort();
    await draining;
    assert.equal(await runSpeedCommand(["1"], io), 0, io.stderr);
    assert.equal(embedded.speed, 1);
  });

  it("never logs Secret data, stringData or a refused secret's value, even at debug level", async () => {
    const base64Bytes = Buffer.from(secretBytes).toString("base64");
    const secret = {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "credentials", namespace: "default" },
      stringData: { password: secretText },
      data: { key: base64Bytes },
    };
    assert.equal((await call("POST", "/api/v1/namespaces/default/secrets", secret)).status, 201);
    const refused = await call("POST", "/api/v1/namespaces/default/secrets", {
      ...secret,
      metadata: { name: "broken", namespace: "default" },
      data: { key: `!${secretText}` },
    });
    assert.equal(refused.status, 422);
    const patched = await trusted(`${embedded.kubeconfigUrl}/api/v1/namespaces/default/secrets/credentials`, {
      method: "PATCH",
      headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify({ stringData: { other: secretText } }),
    });
    assert.equal(patched.status, 200);
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "uses-secret", namespace: "default" },
      spec: {
        containers: [{ name: "main", image: "busybox", volumeMounts: [{ name: "s", mountPath: "/etc/s" }] }],
        volumes: [{ name: "s", secret: { secretName: "credentials" } }],
      },
    };
    assert.equal((await call("POST", "/api/v1/namespaces/default/pods", pod)).status, 201);
    await waitFor(
      "the pod using the secret running",
      async () =>
        (await embedded.cluster.get("Pod", "default", "uses-secret")).status?.phase === "Running" || undefined,
      waitMs,
    );
    const lines = embedded.cluster.logs.lines();
    assert.ok(
      lines.some((line) => line.includes("request served")),
      "debug request logging is on",
    );
    for (const value of [secretText, secretBytes, base64Bytes]) {
      const leaks = lines.filter((line) => line.includes(value));
      assert.deepEqual(leaks, [], `log lines show ${value}`);
    }
  });
});

describe("embedded cluster after a run at --speed", () => {
  it("starts again from the cluster clock's time, ahead of the wall clock, so no timestamp lies in its future", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-embedded-speed-"));
    const real = new RealClock();
    const options = {
      dataDir: dir,
      ephemeral: false,
      nodeCount: 0,
      port: 0,
      host: "127.0.0.1",
      logLevel: "warn" as const,
      verbose: false,
      progress: new StepProgress(real, () => undefined),
      onListening: () => undefined,
    };
    try {
      const fast = await EmbeddedCluster.start({ ...options, speed: 600 });
      assert.equal(fast.speed, 600);
      // 600× for half a second: five minutes of the cluster.
      await real.sleep(500);
      await fast.stop();
      const stoppedAtMs = fast.cluster.clock.now();
      assert.ok(stoppedAtMs - real.now() >= 4 * 60_000, "the fast clock ran ahead of the wall clock");

      const again = await EmbeddedCluster.start(options);
      try {
        assert.equal(again.speed, 1);
        assert.ok(again.cluster.clock.now() >= stoppedAtMs, "resumed from the saved time, not the wall clock");
      } finally {
        await again.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
