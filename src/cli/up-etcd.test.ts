/**
 * `kvol up --etcd`: a local etcd in DATA/etcd on loopback ports holds the objects; stopping kvol
 * stops etcd; starting again resumes from it. Without the binary, a refusal naming the package.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { etcdTestOptions } from "../api/store/testing/etcd-test-server.ts";
import { fetchTrusting } from "../testing/fetch-trusting.ts";
import type { CommandIo } from "./command-io.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { findEtcdBinary } from "./embedded/local-etcd.ts";
import { waitFor } from "./testing/wait-for.ts";
import { parseUpArguments, runUpCommand } from "./up-command.ts";

const startTimeoutMs = 60_000;

function runUp(args: string[], env: { path?: string } = {}) {
  let stop: (signal: string) => void = () => undefined;
  let stdout = "";
  let stderr = "";
  const io: CommandIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    stopRequested: () => new Promise<string>((resolve) => (stop = resolve)),
  };
  const savedPath = process.env.PATH;
  if (env.path !== undefined) process.env.PATH = env.path;
  const running = runUpCommand(args, io).finally(() => {
    process.env.PATH = savedPath;
  });
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    running,
    stop: async () => {
      stop("SIGTERM");
      return running;
    },
  };
}

describe("kvol up --etcd arguments", () => {
  it("refuses --etcd with --ephemeral or real nodes, naming why", () => {
    assert.throws(() => parseUpArguments(["--etcd", "--ephemeral"]), /--etcd and --ephemeral cannot be combined/);
    assert.throws(() => parseUpArguments(["--etcd", "--host", "linux"]), /--etcd runs simulated nodes/);
    const parsed = parseUpArguments(["--etcd", "--data-dir", "/tmp/x"]);
    assert.ok("localEtcd" in parsed && parsed.localEtcd === true);
  });

  it("refuses clearly, naming the package, when there is no etcd binary", async () => {
    assert.equal(findEtcdBinary(""), undefined);
    const dir = mkdtempSync(join(tmpdir(), "kvol-up-noetcd-"));
    try {
      const up = runUp(["--etcd", "--port", "0", "--data-dir", dir, "--nodes", "0"], { path: "" });
      assert.equal(await up.running, 1);
      assert.match(up.stderr(), /--etcd needs the etcd binary on PATH.*apt-get install etcd-server/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("kvol up --etcd", etcdTestOptions(), () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-up-etcd-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the objects in a local etcd under DATA/etcd and resumes from it", { timeout: 180_000 }, async () => {
    const args = ["--etcd", "--port", "0", "--data-dir", dir, "--nodes", "1"];
    const first = runUp(args);
    await waitFor("kvol up ready", () => /Ready: 1 node/.test(first.stdout()) || undefined, startTimeoutMs);
    const etcdUrl = /objects are kept in etcd at (http:\/\/127\.0\.0\.1:\d+)/.exec(first.stdout())?.[1];
    assert.ok(etcdUrl, first.stdout());
    assert.ok(existsSync(join(dir, "etcd", "member")), "etcd's data is in DATA/etcd");
    const apiUrl = (run: ReturnType<typeof runUp>) => /^API server: (\S+)$/m.exec(run.stdout())?.[1] ?? "";
    const trusted = fetchTrusting(readFileSync(new DataDir(dir).caFile, "utf8"));
    const headers = {
      Authorization: `Bearer ${new DataDir(dir).ensureAdminToken()}`,
      "Content-Type": "application/json",
    };
    const created = await trusted(`${apiUrl(first)}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers,
      body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept" }, data: { k: "v" } }),
    });
    assert.equal(created.status, 201, await created.text());
    assert.equal(await first.stop(), 0);
    // etcd stopped with kvol: its port no longer answers.
    await assert.rejects(fetch(`${etcdUrl}/health`));

    const second = runUp(args);
    await waitFor("kvol up ready again", () => /Ready: 1 node/.test(second.stdout()) || undefined, startTimeoutMs);
    assert.match(second.stdout(), new RegExp(`objects are kept in etcd at ${etcdUrl}`));
    const read = await fetchTrusting(readFileSync(new DataDir(dir).caFile, "utf8"))(
      `${apiUrl(second)}/api/v1/namespaces/default/configmaps/kept`,
      { headers },
    );
    assert.equal(read.status, 200);
    assert.deepEqual(((await read.json()) as { data?: unknown }).data, { k: "v" });
    assert.equal(await second.stop(), 0);
  });
});
