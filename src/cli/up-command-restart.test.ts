/**
 * `kvol up` killed with SIGKILL while clients are creating objects, then started again on the same
 * data directory: every create the server acknowledged is there, and the nodes register again.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 25_000;
/** Creates acknowledged before the kill; more are in flight when it comes. */
const acknowledgedBeforeKill = 30;
const concurrentWriters = 4;
const configMaps = "/api/v1/namespaces/default/configmaps";

function configMap(name: string): unknown {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { written: name } };
}

describe("kvol up after SIGKILL", () => {
  const dir = mkdtempSync(join(tmpdir(), "kvol-restart-"));
  const processes: KvolProcess[] = [];
  after(async () => {
    for (const kvol of processes) await kvol.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  function start(): KvolProcess {
    const kvol = new KvolProcess(["up", "--port", "0", "--nodes", "1", "--data-dir", dir]);
    processes.push(kvol);
    return kvol;
  }

  it("keeps every acknowledged object", async () => {
    const first = start();
    const { url, fetch } = await startedCluster(first, startTimeoutMs);
    await first.waitForOutput(/Ready: 1 node/, startTimeoutMs);
    const token = new DataDir(dir).ensureAdminToken();
    const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };

    const acknowledged: string[] = [];
    let next = 0;
    const writer = async (): Promise<void> => {
      // Each writer creates until the server goes away; only a 201 counts as acknowledged.
      for (;;) {
        const name = `cm-${next++}`;
        try {
          const response = await fetch(`${url}${configMaps}`, {
            method: "POST",
            headers,
            body: JSON.stringify(configMap(name)),
          });
          if (response.status === 201) acknowledged.push(name);
          else return;
        } catch (error) {
          assert.ok(error instanceof Error, "a refused connection once the server is gone");
          return;
        }
      }
    };
    const writers = Array.from({ length: concurrentWriters }, writer);
    await waitFor(
      "creates acknowledged",
      () => acknowledged.length >= acknowledgedBeforeKill || undefined,
      startTimeoutMs,
    );
    assert.equal(await first.stop("SIGKILL"), null);
    await Promise.all(writers);
    const ackedAtKill = [...acknowledged];
    assert.ok(next > ackedAtKill.length, "some creates were still in flight at the kill");

    const second = start();
    const restarted = await startedCluster(second, startTimeoutMs);
    await second.waitForOutput(/Ready: 1 node/, startTimeoutMs);
    const list = (await (await restarted.fetch(`${restarted.url}${configMaps}`, { headers })).json()) as {
      items: { metadata: { name: string } }[];
    };
    const stored = new Set(list.items.map((item) => item.metadata.name));
    const lost = ackedAtKill.filter((name) => !stored.has(name));
    assert.deepEqual(lost, [], `acknowledged but lost after the restart (${ackedAtKill.length} acknowledged)`);
    const nodes = (await (await restarted.fetch(`${restarted.url}/api/v1/nodes`, { headers })).json()) as {
      items: { metadata: { name: string }; status: { conditions: { type: string; status: string }[] } }[];
    };
    const node = nodes.items.find((item) => item.metadata.name === "node-1");
    assert.equal(node?.status.conditions.find((condition) => condition.type === "Ready")?.status, "True");
    assert.equal(await second.stop("SIGTERM"), 0, second.stderr);
  });
});
