import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { KObject } from "../objects.ts";
import { resourceForKind } from "../resources.ts";
import { EtcdBackend } from "./etcd-backend.ts";
import { KubeStore } from "./kube-store.ts";
import { etcdTestOptions, startTestEtcd } from "./testing/etcd-test-server.ts";

const writerScript = join(dirname(fileURLToPath(import.meta.url)), "etcd-crash-writer.ts");
/** Kill the writer after this many acknowledged writes. */
const acknowledgementsBeforeKill = 150;
/** The writer stops by itself after this many, so a kill that never comes cannot hang the test. */
const maxWrites = 100_000;

/**
 * Runs the writer; after `acknowledgementsBeforeKill` acknowledgements runs `beforeKill` (which
 * may crash etcd under it), then SIGKILLs the writer; returns every acknowledged name.
 */
function writeUntilKilled(
  endpoint: string,
  beforeKill: () => Promise<void> = async () => undefined,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", writerScript, endpoint, String(maxWrites)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const acknowledged: string[] = [];
    let killed = false;
    let partialLine = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (partialLine + chunk).split("\n");
      partialLine = lines.pop() ?? "";
      acknowledged.push(...lines);
      if (!killed && acknowledged.length >= acknowledgementsBeforeKill) {
        killed = true;
        beforeKill().then(
          () => child.kill("SIGKILL"),
          (error: unknown) => {
            child.kill("SIGKILL");
            reject(error);
          },
        );
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      // Once etcd has crashed under it, the writer may also fail on its own before the kill.
      if (!killed) {
        reject(new Error(`the writer exited without being killed (signal ${signal}); stderr:\n${stderr}`));
        return;
      }
      // A name printed completely before the kill was acknowledged; a cut-off last line was not.
      resolve(acknowledged);
    });
  });
}

/** Checks that every acknowledged name is in the store on etcd, and that writing goes on above them. */
async function checkSurvivors(endpoint: string, acknowledged: readonly string[]): Promise<void> {
  assert.ok(acknowledged.length >= acknowledgementsBeforeKill);
  const configMaps = resourceForKind("ConfigMap");
  assert.ok(configMaps);
  const backend = await EtcdBackend.open({ endpoints: [endpoint] });
  const store = new KubeStore({ backend, clock: new VirtualClock(), random: new Rng(1) });
  try {
    const stored = new Set((await store.list(configMaps)).items.map((item) => item.metadata?.name));
    const missing = acknowledged.filter((name) => !stored.has(name));
    assert.deepEqual(missing, [], "acknowledged writes lost by the crash");
    // etcd's first write is revision 2: every acknowledged create is at or below the revision.
    assert.ok(store.revision() >= acknowledged.length + 1);

    const input: KObject = { metadata: { name: "after-crash" } };
    const after = await store.create(configMaps, input);
    assert.equal(after.metadata?.resourceVersion, String(store.revision()));
    assert.ok(Number(after.metadata?.resourceVersion) > acknowledged.length + 1);
    assert.equal((await store.get(configMaps, "default", "after-crash")).metadata?.uid, after.metadata?.uid);
  } finally {
    await store.close();
  }
}

describe("etcd store crash", etcdTestOptions(), () => {
  it("every write etcd acknowledged survives kill -9 of the writing API server", { timeout: 60_000 }, async () => {
    const etcd = await startTestEtcd();
    try {
      await checkSurvivors(etcd.endpoint, await writeUntilKilled(etcd.endpoint));
    } finally {
      await etcd.stop();
    }
  });

  it("every write etcd acknowledged survives kill -9 of etcd itself and its restart", { timeout: 60_000 }, async () => {
    const etcd = await startTestEtcd();
    try {
      const acknowledged = await writeUntilKilled(etcd.endpoint, () => etcd.crash());
      await etcd.restart();
      await checkSurvivors(etcd.endpoint, acknowledged);
    } finally {
      await etcd.stop();
    }
  });
});
