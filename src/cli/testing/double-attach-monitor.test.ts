import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type AttachmentJson, DoubleAttachMonitor } from "./double-attach-monitor.ts";
import { waitFor } from "./wait-for.ts";

const disk = "kubernetes.io/csi/disk.csi.kvol.io^disk-1";

function attachment(name: string, pv: string, nodeName: string, attached: boolean): AttachmentJson {
  return {
    metadata: { name },
    spec: { nodeName, source: { persistentVolumeName: pv } },
    status: { attached },
  };
}

function apiAnswering(answers: Record<string, unknown>): <T>(path: string) => Promise<T> {
  return async <T>(path: string) => {
    if (!(path in answers)) throw new Error(`unexpected GET ${path}`);
    return answers[path] as T;
  };
}

async function sightingsOf(get: <T>(path: string) => Promise<T>, disksDir: string) {
  const monitor = new DoubleAttachMonitor({ get, disksDir });
  monitor.start();
  await waitFor("a poll", () => monitor.polls > 0, 10_000);
  await monitor.stop();
  return monitor;
}

describe("DoubleAttachMonitor", () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const disksDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-monitor-test-"));
    dirs.push(dir);
    return dir;
  };

  it("sees a volume attached to two nodes in the VolumeAttachments, the Node status and the disk records", async () => {
    const dir = disksDir();
    writeFileSync(
      join(dir, "disk-1.json"),
      JSON.stringify({
        id: "disk-1",
        sizeBytes: 1,
        multiAttach: false,
        attachments: [
          { nodeName: "node-1", readOnly: false },
          { nodeName: "node-2", readOnly: false },
        ],
      }),
    );
    const monitor = await sightingsOf(
      apiAnswering({
        "/apis/storage.k8s.io/v1/volumeattachments": {
          items: [attachment("va-1", "pv-1", "node-1", true), attachment("va-2", "pv-1", "node-2", true)],
        },
        "/api/v1/nodes": {
          items: [
            { metadata: { name: "node-1" }, status: { volumesAttached: [{ name: disk }] } },
            { metadata: { name: "node-2" }, status: { volumesAttached: [{ name: disk }] } },
          ],
        },
      }),
      dir,
    );
    const seen = new Map(monitor.sightings.map((sighting) => [sighting.source, sighting]));
    assert.deepEqual(seen.get("VolumeAttachment"), {
      source: "VolumeAttachment",
      volume: "pv-1",
      nodes: ["node-1", "node-2"],
    });
    assert.deepEqual(seen.get("Node status"), { source: "Node status", volume: disk, nodes: ["node-1", "node-2"] });
    assert.deepEqual(seen.get("disk record"), { source: "disk record", volume: "disk-1", nodes: ["node-1", "node-2"] });
    assert.equal(monitor.mostAttached, 2);
  });

  it("a disk moving between nodes (attached on one, not yet on the other) and a multi-attach disk are no sighting", async () => {
    const dir = disksDir();
    writeFileSync(
      join(dir, "shared.json"),
      JSON.stringify({
        id: "shared",
        sizeBytes: 1,
        multiAttach: true,
        attachments: [
          { nodeName: "node-1", readOnly: false },
          { nodeName: "node-2", readOnly: false },
        ],
      }),
    );
    const monitor = await sightingsOf(
      apiAnswering({
        "/apis/storage.k8s.io/v1/volumeattachments": {
          items: [attachment("va-1", "pv-1", "node-1", true), attachment("va-2", "pv-1", "node-2", false)],
        },
        "/api/v1/nodes": {
          items: [{ metadata: { name: "node-1" }, status: { volumesAttached: [{ name: disk }] } }],
        },
      }),
      dir,
    );
    assert.deepEqual(monitor.sightings, []);
    assert.equal(monitor.mostAttached, 1);
  });
});
