/**
 * The crash campaign: `kill -9` of the process that holds the store, at seeded random moments under
 * a load of creates, updates and deletes with attaches and detaches in flight (`testing/crash-load.ts`),
 * then a restart on the same store. After each restart every write the client got a success for
 * reads back, and the cluster converges: every pod runs, no volume is attached to two nodes, no
 * VolumeAttachment is left over.
 *
 * - `kvol up` on its SQLite store (simulated nodes, claims of the default `standard` class: a
 *   disk.csi.kvol.io disk each, attached through VolumeAttachments);
 * - `kvol server` on etcd with two `kvol node` agents (static hostPath volumes), the server killed
 *   and started again on the same port.
 *
 * Under CI=true (or KVOL_E2E=1) one kill each; `KVOL_CRASH_KILLS=N` kills N times each,
 * `KVOL_CRASH_SEED=S` picks another seed (docs/campaigns.md). The etcd half needs the etcd binary.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startTestEtcdCluster, type TestEtcdCluster } from "../api/store/testing/etcd-test-cluster.ts";
import { etcdBinary } from "../api/store/testing/etcd-test-server.ts";
import { Rng } from "../runtime/rng.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { CrashLoad, type LoadApi, waitForConvergence } from "./testing/crash-load.ts";
import { KvolProcess, type StartedCluster, startedCluster } from "./testing/kvol-process.ts";
import { sleepMs, waitFor } from "./testing/wait-for.ts";

/** The machine is shared and loaded: patience, not a performance claim. */
const startTimeoutMs = 120_000;
const convergeTimeoutMs = 240_000;
const kills = Number(process.env.KVOL_CRASH_KILLS ?? "1");
const seed = Number(process.env.KVOL_CRASH_SEED ?? "1");
/** The load runs between these many ms before each kill (drawn from the seed). */
const loadBeforeKillMs = { min: 1_000, max: 5_000 };
const maxPods = 6;

const e2e = process.env.CI === "true" || process.env.KVOL_E2E === "1";
function skipReason(title: string, needsEtcd: boolean): string | false {
  if (!e2e) {
    const reason = "set KVOL_E2E=1 or CI=true to run the crash campaign";
    console.log(`skipping "${title}": ${reason}`);
    return reason;
  }
  if (!Number.isSafeInteger(kills) || kills < 1)
    return suiteSkip(title, `KVOL_CRASH_KILLS=${kills} is not a whole number >= 1`);
  const missing =
    needsEtcd && etcdBinary() === undefined ? "etcd is not installed (Debian: apt-get install etcd-server)" : undefined;
  return suiteSkip(title, missing);
}

/** Requests to one server at a time; `url` changes when the server restarts. */
class Api implements LoadApi {
  url = "";
  /** Trusts the data directory's CA, which a restart keeps. */
  fetch: StartedCluster["fetch"] = fetch;
  constructor(private readonly token: string) {}

  request(method: string, path: string, body?: unknown): Promise<Response> {
    return this.fetch(`${this.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }
}

/** One kill round: load, kill -9 at a drawn moment, restart, check. Returns a line of figures. */
async function killRound(options: {
  round: number;
  rng: Rng;
  load: CrashLoad;
  api: Api;
  kill: () => Promise<void>;
  restart: () => Promise<void>;
}): Promise<string> {
  const { rng, load, api } = options;
  const loadMs = rng.int(loadBeforeKillMs.min, loadBeforeKillMs.max);
  load.start(api);
  await sleepMs(loadMs);
  await options.kill();
  await load.stop();
  await options.restart();
  const lost = await load.lostWrites(api);
  assert.deepEqual(lost, [], `round ${options.round}: acknowledged writes lost after kill -9`);
  await waitForConvergence(api, convergeTimeoutMs);
  const figures = load.figures();
  return `round ${options.round}: killed after ${loadMs} ms; ${figures.acknowledged} writes acknowledged so far, ${figures.unanswered} unanswered, ${load.checkedCount()} objects read back`;
}

describe("crash campaign: kill -9 of kvol up (SQLite) under load", {
  skip: skipReason("crash campaign: kvol up", false),
}, () => {
  const dirs: string[] = [];
  let kvol: KvolProcess | undefined;
  after(async () => {
    await kvol?.stop("SIGKILL");
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it(`loses no acknowledged write and converges after ${kills} kill(s)`, { timeout: 900_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-crash-up-"));
    dirs.push(dir);
    const start = async (port: string) => {
      kvol = new KvolProcess(["up", "--nodes", "2", "--port", port, "--data-dir", dir, "--speed", "5"]);
      return startedCluster(kvol, startTimeoutMs);
    };
    const first = await start("0");
    const port = new URL(first.url).port;
    const api = new Api(new DataDir(dir).ensureAdminToken());
    api.url = first.url;
    api.fetch = first.fetch;
    const rng = new Rng(seed).stream("crash-campaign/kvol-up");
    const load = new CrashLoad(seed, { storageClassName: "standard" }, maxPods);
    for (let round = 1; round <= kills; round++) {
      const line = await killRound({
        round,
        rng,
        load,
        api,
        kill: async () => {
          assert.equal(await kvol?.stop("SIGKILL"), null);
        },
        restart: async () => {
          api.url = (await start(port)).url;
        },
      });
      console.log(`kvol up ${line}`);
    }
    assert.ok(load.figures().acknowledged > 0, "the load got writes through");
    assert.equal(await kvol?.stop("SIGTERM"), 0, kvol?.stderr);
  });
});

describe("crash campaign: kill -9 of kvol server (etcd) under load", {
  skip: skipReason("crash campaign: kvol server on etcd", true),
}, () => {
  const dirs: string[] = [];
  const processes: KvolProcess[] = [];
  let server: KvolProcess | undefined;
  let etcd: TestEtcdCluster | undefined;
  after(async () => {
    await server?.stop("SIGKILL");
    for (const process of processes) await process.stop("SIGKILL");
    await etcd?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it(`loses no acknowledged write and converges after ${kills} kill(s)`, { timeout: 900_000 }, async () => {
    etcd = await startTestEtcdCluster(1);
    const dir = mkdtempSync(join(tmpdir(), "kvol-crash-server-"));
    dirs.push(dir);
    const nodeNames = ["node-a", "node-b"];
    const start = async (port: string) => {
      server = new KvolProcess([
        "server",
        "--port",
        port,
        "--data-dir",
        dir,
        "--etcd-servers",
        etcd?.endpoints.join(",") ?? "",
        "--node-tokens",
        nodeNames.join(","),
      ]);
      return startedCluster(server, startTimeoutMs);
    };
    const first = await start("0");
    const port = new URL(first.url).port;
    const data = new DataDir(dir);
    const api = new Api(data.ensureAdminToken());
    api.url = first.url;
    api.fetch = first.fetch;
    for (const name of nodeNames) {
      const node = new KvolProcess([
        "node",
        "--server",
        first.url,
        "--certificate-authority",
        first.caFile,
        "--name",
        name,
        "--token-file",
        data.nodeTokenFile(name),
      ]);
      processes.push(node);
    }
    await waitFor(
      "both nodes registered",
      async () => {
        const response = await api.request("GET", "/api/v1/nodes");
        return ((await response.json()) as { items: unknown[] }).items.length === nodeNames.length || undefined;
      },
      startTimeoutMs,
    );
    const rng = new Rng(seed).stream("crash-campaign/kvol-server");
    const load = new CrashLoad(seed + 1, { hostPath: true }, maxPods);
    for (let round = 1; round <= kills; round++) {
      const line = await killRound({
        round,
        rng,
        load,
        api,
        kill: async () => {
          assert.equal(await server?.stop("SIGKILL"), null);
        },
        restart: async () => {
          api.url = (await start(port)).url;
        },
      }).catch((error: unknown) => {
        const nodes = processes.map((node) => `${node.running ? "running" : "exited"}: ${node.stderr.slice(-1500)}`);
        throw new Error(`${error instanceof Error ? error.message : String(error)}\nnodes:\n${nodes.join("\n")}`);
      });
      console.log(`kvol server ${line}`);
      for (const node of processes) assert.ok(node.running, `a kvol node exited: ${node.stderr.slice(-2000)}`);
    }
    assert.ok(load.figures().acknowledged > 0, "the load got writes through");
  });
});
