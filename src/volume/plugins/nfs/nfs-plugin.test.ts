import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PersistentVolume, Pod } from "kubernetes-types/core/v1.js";
import type { RunOptions } from "../../../host/host.ts";
import { Mounter } from "../../../host/mount/mounter.ts";
import { VolumePluginManager } from "../../plugin-manager.ts";
import { VolumeSpec } from "../../spec.ts";
import { commandLine } from "../../testing/recording-host.ts";
import { type SimNodeFixture, settle, simNode } from "../../testing/sim-node.ts";
import { NfsPlugin } from "./nfs-plugin.ts";

const uid = "cddc94e7-8033-4150-bed5-d141e3b71e49";
const dir = `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~nfs/nfs211`;
const pod: Pod = { metadata: { name: "node1-nfs-test", namespace: "ops-test", uid }, spec: { containers: [] } };

function nfsPv(
  extra: Partial<PersistentVolume["spec"]> = {},
  server = "10.20.172.211",
  path = "/nfs",
): PersistentVolume {
  return { metadata: { name: "nfs211" }, spec: { accessModes: ["ReadWriteMany"], nfs: { server, path }, ...extra } };
}

function nfsPlugin(fixture: SimNodeFixture, options: ConstructorParameters<typeof NfsPlugin>[0] = {}): NfsPlugin {
  const plugin = new NfsPlugin(options);
  plugin.init(fixture.volumeHost);
  return plugin;
}

async function isMounted(fixture: SimNodeFixture, path: string): Promise<boolean> {
  return (await fixture.host.mountInfo()).some((entry) => entry.mountPoint === path);
}

/** util-linux 2.23's complaint when mount(8) finds no mount.nfs helper (CentOS 7, seed 002). */
const missingHelperOutput =
  "mount: wrong fs type, bad option, bad superblock on 10.20.172.211:/nfs,\n" +
  "       missing codepage or helper program, or other error\n" +
  "       (for several filesystems (e.g. nfs, cifs) you might\n" +
  "       need a /sbin/mount.<type> helper program)\n" +
  "\n" +
  "       In some cases useful info is found in syslog - try\n" +
  "       dmesg | tail or so.\n";

describe("NFS without the mount.nfs helper (seed 002)", () => {
  it("fails with exit status 32 and mount-utils' exact text, then works once nfs-utils is installed", async () => {
    const fixture = await simNode({ systemd: "absent", withoutCommands: ["mount.nfs"] });
    fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    const spec = VolumeSpec.fromPersistentVolume(nfsPv());
    await assert.rejects(settle(fixture.clock, nfsPlugin(fixture).newMounter(spec, pod).setUp({})), {
      message:
        "mount failed: exit status 32\n" +
        "Mounting command: mount\n" +
        `Mounting arguments: -t nfs 10.20.172.211:/nfs ${dir}\n` +
        `Output: ${missingHelperOutput}`,
    });
    await assert.rejects(
      fixture.host.stat(dir),
      /no such file or directory/,
      "the failed mount's directory is removed",
    );

    fixture.host.installCommand("mount.nfs");
    await settle(fixture.clock, nfsPlugin(fixture).newMounter(spec, pod).setUp({}));
    assert.equal(await isMounted(fixture, dir), true);
  });

  it("shows the systemd-run form on a systemd node, as in the seed's event", async () => {
    const fixture = await simNode({ withoutCommands: ["mount.nfs"] });
    fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    const error = await settle(
      fixture.clock,
      nfsPlugin(fixture).newMounter(VolumeSpec.fromPersistentVolume(nfsPv()), pod).setUp({}),
    ).then(
      () => assert.fail("the mount should fail"),
      (err: Error) => err,
    );
    const lines = error.message.split("\n");
    assert.deepEqual(lines.slice(0, 3), [
      "mount failed: exit status 32",
      "Mounting command: systemd-run",
      `Mounting arguments: --description=Kubernetes transient mount for ${dir} --scope -- mount -t nfs 10.20.172.211:/nfs ${dir}`,
    ]);
    assert.match(lines[3] ?? "", /^Output: Running scope as unit run-\d+\.scope\.$/);
    assert.equal(lines.slice(4).join("\n"), missingHelperOutput);
  });
});

describe("NFS mounts", () => {
  it("passes PV mount options and ro sorted into one -o, and mounts once", async () => {
    const fixture = await simNode({ systemd: "absent" });
    fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    const spec = VolumeSpec.fromPersistentVolume(nfsPv({ mountOptions: ["nfsvers=4.1", "hard"] }), true);
    const plugin = nfsPlugin(fixture);
    await settle(fixture.clock, plugin.newMounter(spec, pod).setUp({}));
    await settle(fixture.clock, plugin.newMounter(spec, pod).setUp({}));
    const mounts = fixture.commands.filter((command) => command.command === "mount").map(commandLine);
    assert.deepEqual(mounts, [`mount -t nfs -o hard,nfsvers=4.1,ro 10.20.172.211:/nfs ${dir}`]);
    assert.equal(plugin.newMounter(spec, pod).getAttributes().readOnly, true);
  });

  it("can mount without a systemd scope", async () => {
    const fixture = await simNode();
    fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    await settle(
      fixture.clock,
      nfsPlugin(fixture, { mountWithoutSystemd: true })
        .newMounter(VolumeSpec.fromPersistentVolume(nfsPv()), pod)
        .setUp({}),
    );
    assert.deepEqual(fixture.commands.map(commandLine), [`mount -t nfs 10.20.172.211:/nfs ${dir}`]);
  });

  it("shares data through the export between pods on different nodes", async () => {
    const first = await simNode({ nodeName: "node-1" });
    const second = await simNode({ nodeName: "node-2", world: first.world });
    first.world.addNfsServer("10.20.172.211").addExport("/nfs");
    const spec = VolumeSpec.fromPersistentVolume(nfsPv());
    const otherPod: Pod = { metadata: { name: "b", namespace: "ops-test", uid: "other" }, spec: { containers: [] } };
    await settle(first.clock, nfsPlugin(first).newMounter(spec, pod).setUp({}));
    const otherMounter = nfsPlugin(second).newMounter(spec, otherPod);
    await settle(second.clock, otherMounter.setUp({}));
    await first.host.writeFile(`${dir}/hello.txt`, "from node-1");
    assert.equal(
      Buffer.from(await second.host.readFile(`${otherMounter.getPath()}/hello.txt`)).toString(),
      "from node-1",
    );
  });

  it("hangs only the mount whose server is down", async () => {
    const fixture = await simNode();
    fixture.world.addNfsServer("10.0.9.1").addExport("/down");
    fixture.world.addNfsServer("10.0.9.2").addExport("/up");
    fixture.world.setNfsReachable("10.0.9.1", false);
    const plugin = nfsPlugin(fixture);
    const downSpec = VolumeSpec.fromPersistentVolume({ ...nfsPv({}, "10.0.9.1", "/down"), metadata: { name: "down" } });
    const upSpec = VolumeSpec.fromPersistentVolume({ ...nfsPv({}, "10.0.9.2", "/up"), metadata: { name: "up" } });
    let downSettled = false;
    const down = plugin
      .newMounter(downSpec, pod)
      .setUp({})
      .finally(() => {
        downSettled = true;
      });
    down.catch(() => undefined);
    await settle(fixture.clock, plugin.newMounter(upSpec, pod).setUp({}));
    await fixture.clock.advanceBy(30_000);
    assert.equal(downSettled, false, "the mount of the unreachable server is still waiting");
    assert.equal(await isMounted(fixture, `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~nfs/up`), true);

    fixture.world.setNfsReachable("10.0.9.1", true);
    await settle(fixture.clock, down);
    assert.equal(await isMounted(fixture, `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~nfs/down`), true);
  });

  it("tears down with unmount and rmdir, and treats a missing directory as done", async () => {
    const fixture = await simNode();
    const exportFs = fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    const plugin = nfsPlugin(fixture);
    await settle(fixture.clock, plugin.newMounter(VolumeSpec.fromPersistentVolume(nfsPv()), pod).setUp({}));
    await fixture.host.writeFile(`${dir}/keep.txt`, "data");
    await settle(fixture.clock, plugin.newUnmounter("nfs211", uid).tearDown());
    assert.equal(await isMounted(fixture, dir), false);
    await assert.rejects(fixture.host.stat(dir), /no such file or directory/);
    assert.notEqual(exportFs.lookup(exportFs.rootIno, "keep.txt"), undefined, "the export's data is untouched");
    await settle(fixture.clock, plugin.newUnmounter("nfs211", uid).tearDown());
    assert.ok(fixture.logger.warned(`Mount cleanup skipped because path does not exist: ${dir}`));
  });

  it("forces the unmount after a minute when the server stops answering during teardown", async () => {
    const fixture = await simNode();
    fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    await settle(fixture.clock, nfsPlugin(fixture).newMounter(VolumeSpec.fromPersistentVolume(nfsPv()), pod).setUp({}));
    // The server dies between the kubelet's checks (which still got answers) and its umount.
    const dyingServerHost = new Proxy(fixture.node.host, {
      get(target, property) {
        const value = Reflect.get(target, property);
        if (property !== "run") return typeof value === "function" ? value.bind(target) : value;
        return (command: string, args: readonly string[], options?: RunOptions) => {
          if (command === "umount") fixture.world.setNfsReachable("10.20.172.211", false);
          return target.run(command, args, options);
        };
      },
    });
    const plugin = new NfsPlugin();
    plugin.init({
      ...fixture.volumeHost,
      node: {
        ...fixture.node,
        host: dyingServerHost,
        mounter: new Mounter(dyingServerHost, { logger: fixture.logger }),
      },
    });
    const started = fixture.clock.now();
    await settle(fixture.clock, plugin.newUnmounter("nfs211", uid).tearDown());
    assert.equal(fixture.clock.now() - started, 60_000, "the plain umount waited its full minute");
    assert.ok(fixture.commands.some((command) => commandLine(command) === `umount -f ${dir}`));
    assert.equal(await isMounted(fixture, dir), false);
  });

  it("has no raw block mode (seed 001)", async () => {
    const fixture = await simNode();
    const manager = new VolumePluginManager();
    manager.register([new NfsPlugin()], fixture.volumeHost);
    const blockSpec = VolumeSpec.fromPersistentVolume(nfsPv({ volumeMode: "Block" }));
    assert.equal(manager.findPluginBySpec(blockSpec).name, "kubernetes.io/nfs");
    assert.equal(manager.findMapperPluginBySpec(blockSpec), undefined);
  });

  it("rebuilds server and path from the mount table after a kubelet restart", async () => {
    const fixture = await simNode();
    fixture.world.addNfsServer("10.20.172.211").addExport("/nfs");
    const plugin = nfsPlugin(fixture);
    await settle(fixture.clock, plugin.newMounter(VolumeSpec.fromPersistentVolume(nfsPv()), pod).setUp({}));
    const { spec } = await plugin.constructVolumeSpec("nfs211", dir);
    assert.deepEqual(spec.volume?.nfs, { server: "10.20.172.211", path: "/nfs" });
  });
});
