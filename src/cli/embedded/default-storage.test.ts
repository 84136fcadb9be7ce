/**
 * `kvol up`'s storage, as a new user meets it: the first claim, written without a
 * `storageClassName`, is provisioned by the default class through disk.csi.kvol.io, attached
 * through a VolumeAttachment and mounted; the classes are created once per data directory and a
 * user's change to them survives a restart.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parseAllDocuments } from "yaml";
import type { PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { StepProgress } from "../step-progress.ts";
import { waitFor } from "../testing/wait-for.ts";
import { EmbeddedCluster } from "./embedded-cluster.ts";
import { defaultStorageClasses } from "./storage-classes.ts";

const waitMs = 30_000;
const examplesFile = join(import.meta.dirname, "../../../examples/00-storage-classes.yaml");

function start(dataDir: string, options: { ephemeral?: boolean; nodeCount?: number } = {}): Promise<EmbeddedCluster> {
  return EmbeddedCluster.start({
    dataDir,
    ephemeral: options.ephemeral ?? false,
    nodeCount: options.nodeCount ?? 0,
    port: 0,
    host: "127.0.0.1",
    logLevel: "info",
    verbose: false,
    progress: new StepProgress(new RealClock(), () => undefined),
    onListening: () => undefined,
    defaultStorage: true,
  });
}

const claim: PersistentVolumeClaim = {
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { namespace: "default", name: "data" },
  // No storageClassName: the default class is filled in.
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
};

const pod: Pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { namespace: "default", name: "web" },
  spec: {
    containers: [{ name: "web", image: "nginx", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
    volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
  },
};

async function isRunning(embedded: EmbeddedCluster): Promise<true | undefined> {
  const current = await embedded.cluster.client.pods.get("default", "web");
  const running = current.status?.containerStatuses?.every((status) => status.state?.running !== undefined);
  return current.status?.phase === "Running" && running === true ? true : undefined;
}

describe("kvol up: ready for a first claim", () => {
  let dir: string;
  let embedded: EmbeddedCluster;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "kvol-storage-"));
    embedded = await start(dir, { nodeCount: 1 });
  });
  after(async () => {
    await embedded.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a claim without storageClassName and a pod using it reach Bound and Running through CSI", async () => {
    const { client } = embedded.cluster;
    const classes = await client.storageClasses.list();
    assert.deepEqual(
      classes.items.map((item) => [
        item.metadata?.name,
        item.provisioner,
        item.metadata?.annotations?.["storageclass.kubernetes.io/is-default-class"],
      ]),
      [
        ["shared", "disk.csi.kvol.io", undefined],
        ["sim-disk", "kvol.io/sim-disk", undefined],
        ["standard", "disk.csi.kvol.io", "true"],
      ],
    );
    await client.persistentVolumeClaims.create(claim);
    await client.pods.create(pod);
    const running = await waitFor(
      "pod web Running",
      async () => {
        const current = await client.pods.get("default", "web");
        return current.status?.phase === "Running" ? current : undefined;
      },
      waitMs,
    );
    assert.equal(running.spec?.nodeName, "node-1");
    const bound = await client.persistentVolumeClaims.get("default", "data");
    assert.equal(bound.status?.phase, "Bound");
    assert.equal(bound.spec?.storageClassName, "standard");
    const volume = await client.persistentVolumes.get("", bound.spec?.volumeName ?? "");
    assert.equal(volume.spec?.csi?.driver, "disk.csi.kvol.io");
    const attachments = await client.volumeAttachments.list();
    assert.deepEqual(
      attachments.items.map((item) => [item.spec.attacher, item.spec.nodeName, item.status?.attached]),
      [["disk.csi.kvol.io", "node-1", true]],
    );
    const csiNode = await client.csiNodes.get("", "node-1");
    assert.deepEqual(
      csiNode.spec?.drivers.map((driver) => driver.name),
      ["disk.csi.kvol.io", "hostpath.csi.kvol.io", "fuse.csi.kvol.io"],
    );
  });
});

describe("kvol up: the default storage classes", () => {
  it("are created at the first start only: a user's change and deletion survive a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-storage-"));
    try {
      const first = await start(dir);
      await first.cluster.client.storageClasses.delete("", "shared");
      await first.cluster.client.storageClasses.mutate("", "standard", (draft) => {
        draft.metadata = { ...draft.metadata, annotations: { "storageclass.kubernetes.io/is-default-class": "false" } };
      });
      await first.stop();

      const second = await start(dir);
      try {
        const classes = await second.cluster.client.storageClasses.list();
        assert.deepEqual(
          classes.items.map((item) => [
            item.metadata?.name,
            item.metadata?.annotations?.["storageclass.kubernetes.io/is-default-class"],
          ]),
          [
            ["sim-disk", undefined],
            ["standard", "false"],
          ],
        );
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a restart recreates the cloud's disks of disk.csi.kvol.io volumes, and the pod runs again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-storage-"));
    try {
      const first = await start(dir, { nodeCount: 1 });
      await first.cluster.client.persistentVolumeClaims.create(claim);
      await first.cluster.client.pods.create(pod);
      await waitFor("pod web Running", async () => isRunning(first), waitMs);
      await first.stop();

      const second = await start(dir, { nodeCount: 1 });
      try {
        const handle = (await second.cluster.client.persistentVolumes.list()).items[0]?.spec?.csi?.volumeHandle ?? "";
        assert.ok(second.cluster.world.disks.has(handle), `disk ${handle} recreated`);
        await waitFor("pod web Running after the restart", async () => isRunning(second), waitMs);
        assert.deepEqual(
          second.cluster.world.disksAttachedTo("node-1").map(({ disk }) => disk.id),
          [handle],
        );
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("are what examples/00-storage-classes.yaml holds, so applying the examples changes nothing", () => {
    const documents = parseAllDocuments(readFileSync(examplesFile, "utf8")).map((document) => document.toJS());
    assert.deepEqual(documents, defaultStorageClasses());
  });
});
