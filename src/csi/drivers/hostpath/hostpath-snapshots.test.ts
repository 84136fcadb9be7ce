import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import type { CsiClient } from "../../grpc/services.ts";
import { MemoryVolumeCatalog } from "../common/volume-catalog.ts";
import {
  blockCapability,
  createRequest,
  mebibyteBytes,
  rejectsWithCode,
  text,
} from "../testing/driver-test-support.ts";
import { createHostpathDriver } from "./hostpath-driver.ts";

const stateDir = "/var/lib/kvol/csi-hostpath";

function setUp() {
  const { world, clock } = newTestWorld();
  const host = world.addNode("node-a");
  const driver = createHostpathDriver({ host, clock, nodeId: "node-a", stateDir });
  return { world, clock, host, client: connectCsiInProcess(driver) };
}

async function volumeIdOf(client: CsiClient, name: string, overrides = {}): Promise<string> {
  const { volume } = await client.createVolume(createRequest(name, overrides));
  return volume?.volumeId ?? "";
}

async function snapshotIdOf(client: CsiClient, name: string, sourceVolumeId: string): Promise<string> {
  const { snapshot } = await client.createSnapshot({ name, sourceVolumeId, secrets: {}, parameters: {} });
  return snapshot?.snapshotId ?? "";
}

describe("hostpath.csi.kvol.io: snapshots, restores and clones", () => {
  it("a restore holds the bytes of the moment of the snapshot; a clone those of the moment of the clone", async () => {
    const { host, client } = setUp();
    const source = await volumeIdOf(client, "pvc-source");
    await host.mkdir(`${stateDir}/${source}/sub`, 0o755);
    await host.writeFile(`${stateDir}/${source}/sub/data.txt`, "before the snapshot");
    const snapshotId = await snapshotIdOf(client, "snapshot-1", source);
    assert.match(snapshotId, /^hostpathsnap-[0-9a-f]+$/);
    await host.writeFile(`${stateDir}/${source}/sub/data.txt`, "after the snapshot");

    const restored = await volumeIdOf(client, "pvc-restored", { volumeContentSource: { snapshot: { snapshotId } } });
    assert.equal(text(await host.readFile(`${stateDir}/${restored}/sub/data.txt`)), "before the snapshot");
    const cloned = await volumeIdOf(client, "pvc-cloned", { volumeContentSource: { volume: { volumeId: source } } });
    assert.equal(text(await host.readFile(`${stateDir}/${cloned}/sub/data.txt`)), "after the snapshot");

    // Deleting the source and the snapshot leaves the restored and cloned volumes whole.
    await client.deleteSnapshot({ snapshotId, secrets: {} });
    await client.deleteVolume({ volumeId: source, secrets: {} });
    assert.equal(text(await host.readFile(`${stateDir}/${restored}/sub/data.txt`)), "before the snapshot");
    assert.equal(text(await host.readFile(`${stateDir}/${cloned}/sub/data.txt`)), "after the snapshot");
    assert.deepEqual(await host.readdir(`${stateDir}/snapshots`), []);
  });

  it("a block volume's snapshot restores into a bigger volume: its bytes, at the new size", async () => {
    const { host, client } = setUp();
    const block = { volumeCapabilities: [blockCapability()] };
    const source = await volumeIdOf(client, "pvc-block", block);
    await host.writeFile(`${stateDir}/${source}`, "disk header");
    await host.createSparseFile(`${stateDir}/${source}`, 10 * mebibyteBytes);
    const snapshotId = await snapshotIdOf(client, "snapshot-block", source);
    const restored = await volumeIdOf(client, "pvc-bigger", {
      ...block,
      capacityRange: { requiredBytes: 20 * mebibyteBytes, limitBytes: 0 },
      volumeContentSource: { snapshot: { snapshotId } },
    });
    assert.equal((await host.stat(`${stateDir}/${restored}`)).size, 20 * mebibyteBytes);
    assert.equal(text(await host.readFile(`${stateDir}/${restored}`)).slice(0, 11), "disk header");
    await rejectsWithCode(
      client.createVolume(createRequest("pvc-as-mount", { volumeContentSource: { snapshot: { snapshotId } } })),
      "InvalidArgument",
      /holds a block volume and cannot become a mount volume/,
    );
  });

  it("a restarted driver process still lists its snapshots and restores them", async () => {
    const { host, clock, client } = setUp();
    const source = await volumeIdOf(client, "pvc-1");
    await host.writeFile(`${stateDir}/${source}/kept.txt`, "kept");
    const startSeconds = Math.floor(clock.now() / 1000);
    await clock.advanceBy(90_000);
    const snapshotId = await snapshotIdOf(client, "snapshot-1", source);
    const restarted = connectCsiInProcess(createHostpathDriver({ host, clock, nodeId: "node-a", stateDir }));
    const listed = await restarted.listSnapshots({
      maxEntries: 0,
      startingToken: "",
      sourceVolumeId: "",
      snapshotId: "",
      secrets: {},
    });
    assert.deepEqual(
      listed.entries.map((entry) => [entry.snapshot?.snapshotId, entry.snapshot?.creationTime?.seconds]),
      [[snapshotId, startSeconds + 90]],
    );
    const restored = await volumeIdOf(restarted, "pvc-2", { volumeContentSource: { snapshot: { snapshotId } } });
    assert.equal(text(await host.readFile(`${stateDir}/${restored}/kept.txt`)), "kept");
  });

  it("a node-local controller cannot snapshot or clone a volume whose data is on another node: NotFound", async () => {
    const { world, clock } = newTestWorld();
    const catalog = new MemoryVolumeCatalog();
    const onA = connectCsiInProcess(
      createHostpathDriver({ host: world.addNode("node-a"), clock, nodeId: "node-a", stateDir, catalog }),
    );
    const onB = connectCsiInProcess(
      createHostpathDriver({ host: world.addNode("node-b"), clock, nodeId: "node-b", stateDir, catalog }),
    );
    const source = await volumeIdOf(onA, "pvc-on-a");
    await rejectsWithCode(
      onB.createSnapshot({ name: "snap", sourceVolumeId: source, secrets: {}, parameters: {} }),
      "NotFound",
      /source volume .* does not exist/,
    );
    await rejectsWithCode(
      onB.createVolume(createRequest("pvc-clone", { volumeContentSource: { volume: { volumeId: source } } })),
      "NotFound",
      /source volume .* does not exist/,
    );
  });

  it("without a clock the driver offers no snapshots and refuses a content source", async () => {
    const { world } = newTestWorld();
    const client = connectCsiInProcess(createHostpathDriver({ host: world.addNode("node-a"), nodeId: "node-a" }));
    const { capabilities } = await client.controllerGetCapabilities({});
    const types = capabilities.map((capability) => capability.rpc?.type);
    assert.ok(!types.includes("CREATE_DELETE_SNAPSHOT") && !types.includes("CLONE_VOLUME"));
    await rejectsWithCode(
      client.createVolume(createRequest("pvc", { volumeContentSource: { volume: { volumeId: "hostpath-1" } } })),
      "InvalidArgument",
      /volume_content_source is not supported/,
    );
  });
});
