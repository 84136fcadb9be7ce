/**
 * hostpath.csi.kvol.io's snapshots, restores and clones on this machine's file system (a LinuxHost
 * over a scratch state directory; the controller makes no mounts, so no root is needed): the data
 * is copied with cp(1), a block volume's file stays sparse and grows to the new capacity.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { LinuxHost } from "../../../host/linux/linux-host.ts";
import { RealClock } from "../../../runtime/real-clock.ts";
import { connectCsiInProcess } from "../../grpc/in-process.ts";
import { blockCapability, createRequest, mebibyteBytes } from "../testing/driver-test-support.ts";
import { createHostpathDriver } from "./hostpath-driver.ts";

describe("hostpath.csi.kvol.io snapshots on a real file system", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "kvol-hostpath-snapshots-"));
  after(() => rmSync(stateDir, { recursive: true, force: true }));
  const client = connectCsiInProcess(
    createHostpathDriver({
      host: new LinuxHost({ nodeName: "node-a" }),
      clock: new RealClock(),
      nodeId: "node-a",
      stateDir,
    }),
  );

  it("restores the bytes of the snapshot's moment and clones those of the clone's", async () => {
    const source = (await client.createVolume(createRequest("pvc-source"))).volume?.volumeId ?? "";
    writeFileSync(join(stateDir, source, "file"), "at the snapshot");
    const { snapshot } = await client.createSnapshot({
      name: "snap",
      sourceVolumeId: source,
      secrets: {},
      parameters: {},
    });
    const snapshotId = snapshot?.snapshotId ?? "";
    writeFileSync(join(stateDir, source, "file"), "later");
    const restored = (
      await client.createVolume(createRequest("pvc-restored", { volumeContentSource: { snapshot: { snapshotId } } }))
    ).volume?.volumeId;
    const cloned = (
      await client.createVolume(createRequest("pvc-cloned", { volumeContentSource: { volume: { volumeId: source } } }))
    ).volume?.volumeId;
    assert.equal(readFileSync(join(stateDir, restored ?? "", "file"), "utf8"), "at the snapshot");
    assert.equal(readFileSync(join(stateDir, cloned ?? "", "file"), "utf8"), "later");
    await client.deleteSnapshot({ snapshotId, secrets: {} });
    await client.deleteSnapshot({ snapshotId, secrets: {} });
  });

  it("restores a block volume's sparse file into a bigger volume, keeping its bytes and its holes", async () => {
    const block = { volumeCapabilities: [blockCapability()] };
    const source = (await client.createVolume(createRequest("pvc-block", block))).volume?.volumeId ?? "";
    writeFileSync(join(stateDir, source), "header", { flag: "r+" });
    const { snapshot } = await client.createSnapshot({
      name: "snap-block",
      sourceVolumeId: source,
      secrets: {},
      parameters: {},
    });
    const restored = (
      await client.createVolume(
        createRequest("pvc-block-restored", {
          ...block,
          capacityRange: { requiredBytes: 20 * mebibyteBytes, limitBytes: 0 },
          volumeContentSource: { snapshot: { snapshotId: snapshot?.snapshotId ?? "" } },
        }),
      )
    ).volume?.volumeId;
    const path = join(stateDir, restored ?? "");
    assert.equal(statSync(path).size, 20 * mebibyteBytes);
    assert.equal(readFileSync(path).subarray(0, 6).toString("utf8"), "header");
    assert.ok(statSync(path).blocks * 512 < 20 * mebibyteBytes, "the copy stays sparse");
  });
});
