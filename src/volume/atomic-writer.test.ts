import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Host } from "../host/host.ts";
import { Rng } from "../runtime/rng.ts";
import { AtomicWriter, type FileProjection, payloadPathProblem, timestampDirPrefix } from "./atomic-writer.ts";
import { type SimNodeFixture, simNode } from "./testing/sim-node.ts";

const target = "/var/lib/kubelet/pods/u/volumes/kubernetes.io~configmap/config";

function files(entries: Record<string, string>, mode = 0o644): Map<string, FileProjection> {
  return new Map(Object.entries(entries).map(([path, text]) => [path, { data: Buffer.from(text), mode }]));
}

async function writer(fixture: SimNodeFixture, host: Host = fixture.host): Promise<AtomicWriter> {
  await fixture.host.mkdir(target, 0o777, { recursive: true });
  return new AtomicWriter(host, target, { clock: fixture.clock, rng: new Rng(7) });
}

async function text(host: Host, path: string): Promise<string> {
  return Buffer.from(await host.readFile(path)).toString();
}

describe("AtomicWriter layout", () => {
  it("publishes files through ..data into a hidden timestamped directory", async () => {
    const fixture = await simNode();
    await (await writer(fixture)).write(files({ "app.properties": "a=1", "conf/nested.yaml": "x: 1" }, 0o400));
    const dataTarget = await fixture.host.readlink(`${target}/..data`);
    assert.match(dataTarget, /^\.\.2026_01_01_00_00_00\.\d+$/);
    assert.equal(await fixture.host.readlink(`${target}/app.properties`), "..data/app.properties");
    assert.equal(await fixture.host.readlink(`${target}/conf`), "..data/conf");
    assert.equal(await text(fixture.host, `${target}/conf/nested.yaml`), "x: 1");
    assert.equal((await fixture.host.stat(`${target}/app.properties`)).mode, 0o400);
    assert.equal((await fixture.host.stat(`${target}/${dataTarget}`)).mode, 0o755);
    assert.deepEqual(
      (await fixture.host.readdir(target)).sort(),
      [dataTarget, "..data", "app.properties", "conf"].sort(),
    );
  });

  it("formats the directory name from the clock in UTC", () => {
    assert.equal(timestampDirPrefix(1_571_813_185_000), "..2019_10_23_06_46_25.");
  });

  it("swaps to new content, removing stale keys and the old directory", async () => {
    const fixture = await simNode();
    const atomic = await writer(fixture);
    await atomic.write(files({ a: "1", b: "1" }));
    const first = await fixture.host.readlink(`${target}/..data`);
    await fixture.clock.advanceBy(5_000);
    await atomic.write(files({ a: "2", c: "2" }));
    const second = await fixture.host.readlink(`${target}/..data`);
    assert.notEqual(second, first);
    assert.match(second, /^\.\.2026_01_01_00_00_05\./);
    assert.equal(await text(fixture.host, `${target}/a`), "2");
    assert.equal(await text(fixture.host, `${target}/c`), "2");
    assert.deepEqual((await fixture.host.readdir(target)).sort(), [second, "..data", "a", "c"].sort());
  });

  it("does nothing when the content is identical", async () => {
    const fixture = await simNode();
    const atomic = await writer(fixture);
    await atomic.write(files({ a: "1" }));
    const first = await fixture.host.readlink(`${target}/..data`);
    await fixture.clock.advanceBy(60_000);
    await atomic.write(files({ a: "1" }));
    assert.equal(await fixture.host.readlink(`${target}/..data`), first);
    assert.equal(await text(fixture.host, `${target}/a`), "1");
  });

  it("recreates a user-visible link someone deleted, without rewriting the data", async () => {
    const fixture = await simNode();
    const atomic = await writer(fixture);
    await atomic.write(files({ a: "1" }));
    const first = await fixture.host.readlink(`${target}/..data`);
    await fixture.host.unlink(`${target}/a`);
    await atomic.write(files({ a: "1" }));
    assert.equal(await fixture.host.readlink(`${target}/..data`), first);
    assert.equal(await text(fixture.host, `${target}/a`), "1");
  });

  it("refuses absolute paths, '..' elements and names starting with '..'", async () => {
    assert.equal(payloadPathProblem("/etc/passwd"), "invalid path: must be relative path: /etc/passwd");
    assert.equal(payloadPathProblem("a/../../b"), "invalid path: must not contain '..': a/../../b");
    assert.equal(payloadPathProblem("..data"), "invalid path: must not start with '..': ..data");
    assert.equal(payloadPathProblem(""), 'invalid path: must not be empty: ""');
    assert.equal(
      payloadPathProblem("x".repeat(256)),
      "invalid path: filenames must be less than or equal to 255 characters",
    );
    assert.equal(payloadPathProblem("a/..b"), undefined);
    const fixture = await simNode();
    await assert.rejects((await writer(fixture)).write(files({ "..data": "x" })), /must not start with '\.\.'/);
    assert.deepEqual(await fixture.host.readdir(target), [], "nothing is written for an invalid payload");
  });
});

/** The payload version a reader sees when it resolves `..data` once and reads every file below it. */
async function readSnapshot(host: Host, keys: readonly string[]): Promise<string[] | undefined> {
  let dir: string;
  try {
    dir = await host.readlink(`${target}/..data`);
  } catch {
    return undefined;
  }
  try {
    return await Promise.all(keys.map((key) => text(host, `${target}/${dir}/${key}`)));
  } catch {
    // The old directory was removed under the reader: it opens ..data again, as a real reader retries.
    return undefined;
  }
}

/** Wraps a host so `afterEachCall` runs after every call the writer makes, before its next one. */
function steppingHost(host: Host, afterEachCall: () => Promise<void>): Host {
  return new Proxy(host, {
    get(targetHost, property) {
      const value = Reflect.get(targetHost, property);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        try {
          return await value.apply(targetHost, args);
        } finally {
          await afterEachCall();
        }
      };
    },
  });
}

describe("AtomicWriter under a concurrent reader", () => {
  it("never shows a reader a mix of old and new files", async () => {
    const fixture = await simNode();
    const keys = ["a", "b", "dir/c"];
    const version = (n: number) => files(Object.fromEntries(keys.map((key) => [key, `v${n}:${key}`])));
    const seen = new Set<string>();
    let snapshots = 0;
    const reader = async () => {
      const snapshot = await readSnapshot(fixture.host, keys);
      if (snapshot === undefined) return;
      snapshots++;
      const versions = new Set(snapshot.map((content) => content.split(":")[0]));
      assert.equal(versions.size, 1, `reader saw a mix: ${snapshot.join(", ")}`);
      seen.add([...versions][0] as string);
    };
    const atomic = await writer(fixture, steppingHost(fixture.host, reader));
    for (let n = 1; n <= 4; n++) {
      await fixture.clock.advanceBy(1_000);
      await atomic.write(version(n));
    }
    assert.deepEqual([...seen].sort(), ["v1", "v2", "v3", "v4"]);
    assert.ok(snapshots > 40, `the reader looked after every step of the writer (${snapshots} snapshots)`);
  });
});
