import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newTestWorld } from "../../../host/sim/testing/sim-test-world.ts";
import { HostFileVolumeCatalog } from "./host-file-catalog.ts";
import type { VolumeRecord } from "./volume-catalog.ts";

const record = (volumeId: string, name: string): VolumeRecord => ({
  volumeId,
  name,
  capacityBytes: 1024,
  accessType: "mount",
  parameters: {},
  publications: [],
});

describe("HostFileVolumeCatalog", () => {
  it("keeps records in one JSON file that a second catalog on the same directory reads back", async () => {
    const { world } = newTestWorld();
    const host = world.addNode("node-a");
    const catalog = new HostFileVolumeCatalog(host, "/state");
    await Promise.all([catalog.put(record("v2", "b")), catalog.put(record("v1", "a"))]);
    const reopened = new HostFileVolumeCatalog(host, "/state");
    assert.deepEqual(
      (await reopened.list()).map((r) => r.volumeId),
      ["v1", "v2"],
    );
    assert.equal((await reopened.findByName("b"))?.volumeId, "v2");
    await reopened.remove("v1");
    assert.equal(await catalog.get("v1"), undefined);
    assert.deepEqual(await host.readdir("/state"), ["volumes.json"], "no temporary file is left behind");
  });

  it("a record handed out is a copy", async () => {
    const { world } = newTestWorld();
    const catalog = new HostFileVolumeCatalog(world.addNode("node-a"), "/state");
    await catalog.put(record("v1", "a"));
    const copy = await catalog.get("v1");
    copy?.publications.push({ nodeId: "n", readonly: false, singleNode: true });
    assert.deepEqual((await catalog.get("v1"))?.publications, []);
  });

  it("a damaged file is reported with its path and what to do, never silently emptied", async () => {
    const { world } = newTestWorld();
    const host = world.addNode("node-a");
    await host.mkdir("/state", 0o755);
    await host.writeFile("/state/volumes.json", "{not json");
    const catalog = new HostFileVolumeCatalog(host, "/state");
    await assert.rejects(
      catalog.list(),
      /volume catalog \/state\/volumes.json is not valid JSON .*restore it from a backup/,
    );
    await host.writeFile("/state/volumes.json", JSON.stringify({ volumes: [{ volumeId: 1 }] }));
    await assert.rejects(catalog.put(record("v1", "a")), /has no valid "volumes" list/);
  });
});
