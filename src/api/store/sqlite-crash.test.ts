import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { it } from "node:test";
import { fileURLToPath } from "node:url";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { KObject } from "../objects.ts";
import { resourceForKind } from "../resources.ts";
import { openSqliteStore } from "./sqlite-store.ts";

const writerScript = join(dirname(fileURLToPath(import.meta.url)), "sqlite-crash-writer.ts");
/** Kill the writer after this many acknowledged writes. */
const acknowledgementsBeforeKill = 150;
/** The writer stops by itself after this many, so a kill that never comes cannot hang the test. */
const maxWrites = 100_000;

/**
 * Runs the writer with `inFlight` creates at a time, SIGKILLs it after `acknowledgementsBeforeKill`
 * acknowledgements, returns every acknowledged name.
 */
function writeUntilKilled(path: string, inFlight: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const args = ["--import", "tsx", writerScript, path, String(maxWrites), String(inFlight)];
    const child = spawn(process.execPath, args, {
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
        killed = child.kill("SIGKILL");
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      if (signal !== "SIGKILL") {
        reject(new Error(`the writer exited without being killed (signal ${signal}); stderr:\n${stderr}`));
        return;
      }
      // A name printed completely before the kill was acknowledged; a cut-off last line was not.
      resolve(acknowledged);
    });
  });
}

for (const inFlight of [1, 16]) {
  const how = inFlight === 1 ? "one create at a time" : `${inFlight} concurrent creates sharing commits`;
  it(`every acknowledged write survives kill -9 of the writing process (${how})`, async () => {
    await checkKillRightAfterAcknowledgement(inFlight);
  });
}

async function checkKillRightAfterAcknowledgement(inFlight: number): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-crash-"));
  try {
    const path = join(directory, "store.db");
    const acknowledged = await writeUntilKilled(path, inFlight);
    assert.ok(acknowledged.length >= acknowledgementsBeforeKill);

    const configMaps = resourceForKind("ConfigMap");
    assert.ok(configMaps);
    const store = openSqliteStore({ path, clock: new VirtualClock(), random: new Rng(1) });
    try {
      const stored = new Set((await store.list(configMaps)).items.map((item) => item.metadata?.name));
      const missing = acknowledged.filter((name) => !stored.has(name));
      assert.deepEqual(missing, [], "acknowledged writes lost by the crash");
      assert.ok(store.revision() >= acknowledged.length);

      const input: KObject = { metadata: { name: "after-crash" } };
      const after = await store.create(configMaps, input);
      assert.equal(after.metadata?.resourceVersion, String(store.revision()));
      assert.ok(Number(after.metadata?.resourceVersion) > acknowledged.length);
      assert.equal((await store.get(configMaps, "default", "after-crash")).metadata?.uid, after.metadata?.uid);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
