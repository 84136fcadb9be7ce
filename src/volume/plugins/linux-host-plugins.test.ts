/**
 * The node-local plugins (emptyDir, hostPath, configMap, secret) on a real Linux host, in a private
 * mount namespace: real directories, a real tmpfs, real symlinks swapped by rename(2).
 */
import assert from "node:assert/strict";
import { posix } from "node:path";
import { describe, it } from "node:test";
import type { Pod } from "kubernetes-types/core/v1.js";
import { LinuxHost } from "../../host/linux/linux-host.ts";
import { inPrivateMountNamespace } from "../../host/linux/private-mount-namespace.ts";
import { makeScratchDir, removeScratchDir } from "../../host/linux/scratch-dir.ts";
import { Mounter } from "../../host/mount/mounter.ts";
import { RealClock } from "../../runtime/real-clock.ts";
import { Rng } from "../../runtime/rng.ts";
import { VolumeSpec } from "../spec.ts";
import { InMemoryVolumeApi } from "../testing/in-memory-volume-api.ts";
import { RecordingLogger } from "../testing/recording-logger.ts";
import type { VolumeHost } from "../volume-host.ts";
import { ConfigMapPlugin } from "./configmap/config-map-plugin.ts";
import { EmptyDirPlugin } from "./emptydir/empty-dir-plugin.ts";
import { HostPathPlugin } from "./hostpath/host-path-plugin.ts";
import { SecretPlugin } from "./secret/secret-plugin.ts";

const uid = "linux-pod-uid";
const pod: Pod = { metadata: { name: "web", namespace: "default", uid }, spec: { containers: [] } };

interface RealNode {
  host: LinuxHost;
  volumeHost: VolumeHost;
  api: InMemoryVolumeApi;
  rootDir: string;
  scratch: string;
}

async function withRealNode(test: (node: RealNode) => Promise<void>): Promise<void> {
  const scratch = await makeScratchDir("volume-plugins");
  const rootDir = posix.join(scratch, "kubelet");
  const host = new LinuxHost({ nodeName: "node-a" });
  await host.mkdir(rootDir, 0o750, { recursive: true });
  const logger = new RecordingLogger();
  const api = new InMemoryVolumeApi();
  const mounter = new Mounter(host, { logger });
  const volumeHost: VolumeHost = {
    clock: new RealClock(),
    rng: new Rng(3),
    logger,
    api,
    node: { host, nodeName: "node-a", rootDir, mounter },
  };
  try {
    await test({ host, volumeHost, api, rootDir, scratch });
  } finally {
    await removeScratchDir(scratch);
  }
}

async function isMountPoint(host: LinuxHost, path: string): Promise<boolean> {
  return (await host.mountInfo()).some((mount) => mount.mountPoint === path);
}

inPrivateMountNamespace(import.meta.filename, "volume plugins on LinuxHost", () => {
  describe("volume plugins on a real Linux host", () => {
    it("emptyDir: a 0777 directory on disk, and a sized tmpfs in memory, both torn down", async () => {
      await withRealNode(async ({ host, volumeHost, rootDir }) => {
        const plugin = new EmptyDirPlugin();
        plugin.init(volumeHost);
        const disk = plugin.newMounter(VolumeSpec.fromVolume({ name: "scratch", emptyDir: {} }), pod);
        await disk.setUp({});
        assert.equal((await host.stat(disk.getPath())).mode, 0o777);

        const memory = plugin.newMounter(
          VolumeSpec.fromVolume({ name: "cache", emptyDir: { medium: "Memory", sizeLimit: "8Mi" } }),
          pod,
        );
        await memory.setUp({});
        const tmpfs = (await host.mountInfo()).find((mount) => mount.mountPoint === memory.getPath());
        assert.equal(tmpfs?.fsType, "tmpfs");
        assert.ok(tmpfs?.superOptions.includes("size=8192k"), `tmpfs options: ${tmpfs?.superOptions.join(",")}`);

        await plugin.newUnmounter("cache", uid).tearDown();
        await plugin.newUnmounter("scratch", uid).tearDown();
        assert.equal(await isMountPoint(host, memory.getPath()), false);
        await assert.rejects(host.stat(disk.getPath()), /no such file or directory/);
        assert.ok(disk.getPath().startsWith(rootDir));
      });
    });

    it("hostPath: DirectoryOrCreate and FileOrCreate create what is missing", async () => {
      await withRealNode(async ({ host, volumeHost, scratch }) => {
        const plugin = new HostPathPlugin();
        plugin.init(volumeHost);
        const dir = posix.join(scratch, "created/dir");
        await plugin
          .newMounter(VolumeSpec.fromVolume({ name: "d", hostPath: { path: dir, type: "DirectoryOrCreate" } }), pod)
          .setUp({});
        assert.equal((await host.stat(dir)).mode, 0o755);
        const file = posix.join(scratch, "lock");
        await plugin
          .newMounter(VolumeSpec.fromVolume({ name: "f", hostPath: { path: file, type: "FileOrCreate" } }), pod)
          .setUp({});
        assert.equal((await host.stat(file)).type, "file");
        await assert.rejects(
          plugin
            .newMounter(VolumeSpec.fromVolume({ name: "s", hostPath: { path: file, type: "Socket" } }), pod)
            .setUp({}),
          { message: `hostPath type check failed: ${file} is not a socket file` },
        );
      });
    });

    it("configMap: files on disk behind ..data, updated by one rename", async () => {
      await withRealNode(async ({ host, volumeHost, api }) => {
        const plugin = new ConfigMapPlugin();
        plugin.init(volumeHost);
        const spec = VolumeSpec.fromVolume({ name: "config", configMap: { name: "web" } });
        api.putConfigMap({ metadata: { name: "web", namespace: "default" }, data: { "a.conf": "v1" } });
        const mounter = plugin.newMounter(spec, pod);
        await mounter.setUp({});
        const first = await host.readlink(posix.join(mounter.getPath(), "..data"));
        api.putConfigMap({ metadata: { name: "web", namespace: "default" }, data: { "a.conf": "v2" } });
        await plugin.newMounter(spec, pod).setUp({});
        assert.notEqual(await host.readlink(posix.join(mounter.getPath(), "..data")), first);
        assert.equal(Buffer.from(await host.readFile(posix.join(mounter.getPath(), "a.conf"))).toString(), "v2");
        assert.equal(await isMountPoint(host, mounter.getPath()), false);
        await plugin.newUnmounter("config", uid).tearDown();
      });
    });

    it("secret: files on a tmpfs, and the missing-secret error", async () => {
      await withRealNode(async ({ host, volumeHost, api }) => {
        const plugin = new SecretPlugin();
        plugin.init(volumeHost);
        const spec = VolumeSpec.fromVolume({ name: "token", secret: { secretName: "token" } });
        await assert.rejects(plugin.newMounter(spec, pod).setUp({}), { message: 'secret "token" not found' });
        api.putSecret({
          metadata: { name: "token", namespace: "default" },
          data: { token: Buffer.from("t0k3n").toString("base64") },
        });
        const mounter = plugin.newMounter(spec, pod);
        await mounter.setUp({});
        assert.equal(Buffer.from(await host.readFile(posix.join(mounter.getPath(), "token"))).toString(), "t0k3n");
        assert.equal(await isMountPoint(host, mounter.getPath()), true);
        await plugin.newUnmounter("token", uid).tearDown();
        assert.equal(await isMountPoint(host, mounter.getPath()), false);
      });
    });
  });
});
