import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cluster } from "../../cmd/cluster.ts";
import type { SimFilesystem } from "../../host/sim/filesystem.ts";
import { clusterPerTest } from "../testing/clusters.ts";
import { isRunning } from "../testing/e2e.ts";
import { claimYaml, podYaml, storageClassYaml } from "../testing/manifests.ts";
import { bytesNeverLost } from "./bytes-never-lost.ts";
import { runChecked } from "./checked-run.ts";
import { InvariantChecker } from "./checker.ts";
import { writeToVolume } from "./data-ledger.ts";

const minuteMs = 60_000;
const nfsServer = "10.0.9.1";

async function runningPod(cluster: Cluster, checker: InvariantChecker, yaml: string): Promise<void> {
  await cluster.addNode("node-a", { zone: "zone-1" });
  await cluster.apply(yaml);
  const running = async () => isRunning(await cluster.tryGet("Pod", "default", "app"));
  assert.equal(await runChecked(cluster, checker, { until: running, forMs: 2 * minuteMs }), undefined);
}

/** A pod on node-a with a claim on a sim-disk; returns the disk's filesystem and id. */
async function podOnDisk(cluster: Cluster, checker: InvariantChecker): Promise<{ fs: SimFilesystem; diskId: string }> {
  await runningPod(
    cluster,
    checker,
    `${storageClassYaml()}---\n${claimYaml("data")}---\n${podYaml("app", "persistentVolumeClaim: { claimName: data }")}`,
  );
  await writeToVolume(cluster, {
    namespace: "default",
    pod: "app",
    volume: "data",
    path: "db/rows",
    content: "row 1\n",
  });
  const diskId = (await cluster.get("PersistentVolumeClaim", "default", "data")).spec?.volumeName ?? "";
  const content = cluster.world.disks.disk(diskId).storage.content;
  assert.equal(content.kind, "filesystem");
  return { fs: content.fs, diskId };
}

/** The inode of `path` in `fs`, which must exist. */
function inodeAt(fs: SimFilesystem, path: string): { dirIno: number; name: string; ino: number } {
  const parts = path.split("/");
  const name = parts.pop() ?? "";
  let dirIno = fs.rootIno;
  for (const part of parts) dirIno = fs.lookup(dirIno, part) ?? assert.fail(`no ${part} in ${path}`);
  return { dirIno, name, ino: fs.lookup(dirIno, name) ?? assert.fail(`no ${path}`) };
}

const lostMessage = (diskId: string, problem: string) =>
  new RegExp(`^bytes written to PersistentVolume/${diskId} at \\S+ by Pod/default/app on node-a are lost: ${problem}$`);

describe("bytes-never-lost", () => {
  const startCluster = clusterPerTest();

  it("catches a written file deleted on the disk, and names the volume, the disk and the pod", async () => {
    const cluster = await startCluster({ seed: 11 });
    const checker = new InvariantChecker(cluster, [bytesNeverLost]);
    const { fs, diskId } = await podOnDisk(cluster, checker);
    assert.equal(await runChecked(cluster, checker, { forMs: minuteMs }), undefined, "the bytes are there");
    const { dirIno, name } = inodeAt(fs, "db/rows");
    fs.remove(dirIno, name);
    const report = await checker.check();
    assert.match(report?.violations[0]?.message ?? "", lostMessage(diskId, "db/rows is gone"));
    assert.deepEqual(report?.violations[0]?.objects, [
      `PersistentVolume/${diskId}`,
      `disk/${diskId}`,
      "Pod/default/app",
    ]);
  });

  it("catches changed bytes and a reformatted disk, and follows the latest write to a path", async () => {
    const cluster = await startCluster({ seed: 12 });
    const checker = new InvariantChecker(cluster, [bytesNeverLost]);
    const { fs, diskId } = await podOnDisk(cluster, checker);
    await writeToVolume(cluster, {
      namespace: "default",
      pod: "app",
      volume: "data",
      path: "db/rows",
      content: "row 2\n",
    });
    assert.equal(await checker.check(), undefined, "the second write replaces the first");
    fs.writeData(inodeAt(fs, "db/rows").ino, new TextEncoder().encode("row 1\n"), "/db/rows");
    assert.match(
      (await checker.check())?.violations[0]?.message ?? "",
      lostMessage(diskId, "db/rows holds 6 bytes that differ from the 6 written"),
    );
    cluster.world.disks.disk(diskId).storage.format("ext4", "0000");
    assert.match(
      (await checker.check())?.violations[0]?.message ?? "",
      lostMessage(diskId, `disk/${diskId} was reformatted or wiped after the write`),
    );
  });

  it("catches bytes lost on an NFS export, read on the server even while it does not answer", async () => {
    const cluster = await startCluster({ seed: 13 });
    const exportFs = cluster.world.addNfsServer(nfsServer).addExport("/exports/data");
    const checker = new InvariantChecker(cluster, [bytesNeverLost]);
    await runningPod(cluster, checker, podYaml("app", `nfs: { server: ${nfsServer}, path: /exports/data }`));
    await writeToVolume(cluster, {
      namespace: "default",
      pod: "app",
      volume: "data",
      path: "index.html",
      content: "<h1>hi</h1>",
    });
    cluster.world.setNfsReachable(nfsServer, false);
    assert.equal(await runChecked(cluster, checker, { forMs: minuteMs }), undefined);
    exportFs.remove(exportFs.rootIno, "index.html");
    const report = await checker.check();
    assert.match(
      report?.violations[0]?.message ?? "",
      /^bytes written to Pod\/default\/app volume data at \S+ by Pod\/default\/app on node-a are lost: index.html is gone$/,
    );
    assert.deepEqual(report?.violations[0]?.objects, [
      "Pod/default/app",
      `nfs/${nfsServer}:/exports/data`,
      "Pod/default/app",
    ]);
  });

  it("refuses writes it cannot follow, naming the field", async () => {
    const cluster = await startCluster({ seed: 14 });
    const checker = new InvariantChecker(cluster, [bytesNeverLost]);
    await runningPod(cluster, checker, podYaml("app", "emptyDir: {}"));
    const write = { namespace: "default", pod: "app", volume: "data", path: "x", content: "x" };
    await assert.rejects(writeToVolume(cluster, write), {
      message:
        'writeToVolume: volume: "data" of pod default/app is of type emptyDir, whose contents end with the pod; write to a persistent volume',
    });
    await assert.rejects(writeToVolume(cluster, { ...write, volume: "logs" }), {
      message: 'writeToVolume: volume: pod default/app has no volume "logs" (it has: data)',
    });
    await assert.rejects(writeToVolume(cluster, { ...write, path: "../etc/passwd" }), {
      message: 'writeToVolume: path: must be a relative path inside the volume, got "../etc/passwd"',
    });
  });
});
