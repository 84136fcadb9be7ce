/**
 * The FUSE part of the Host contract: a bindfs daemon serving a directory, what the kernel shows of
 * its mount, and what is left when the daemon dies (seed 003, spec §8.3). Linux's behaviour is the
 * reference — these cases hold the simulated bindfs to what bindfs 1.14 on libfuse 3 does:
 *
 * - the mount table lists type `fuse` (libfuse 3 adds no `.bindfs` subtype), the served directory
 *   as the source, and the super options `rw,user_id=0,group_id=0,default_permissions,allow_other`;
 * - once the daemon is gone, stat of the mount point, reads and listings fail with ENOTCONN while
 *   the mount stays listed; `umount` and `umount -l` both remove it;
 * - unmounting a live mount ends its daemon.
 */
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import type { Host, MountInfo } from "./host.ts";
import { expectErrno, type HostUnderTest } from "./host-contract.ts";

/** The FUSE program of these cases, in both hosts. */
const fuseProgram = "bindfs";
/** The agent whose scope the daemons join, as a CSI node plugin's would. */
const contractAgent = "contract-plugin";
/** Looks at the mount table or the process this many times before giving up (with `pause()` between). */
const settleLooksMax = 500;

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

function fuseMountAt(mounts: readonly MountInfo[], path: string): MountInfo | undefined {
  return mounts.findLast((mount) => mount.mountPoint === path);
}

/** Looks until `done()` holds, pausing between looks; fails with `what` when it never does. */
async function settle(subject: HostUnderTest, what: string, done: () => Promise<boolean>): Promise<void> {
  for (let look = 0; look < settleLooksMax; look += 1) {
    if (await done()) return;
    await subject.pause();
  }
  assert.fail(`${what}: still not so after ${settleLooksMax} looks`);
}

interface Served {
  source: string;
  mountPoint: string;
  pid: number;
}

/** Starts bindfs on `<root>/<name>-src` → `<root>/<name>`, with one file, and waits for its mount. */
async function serveDirectory(subject: HostUnderTest, name: string): Promise<Served> {
  const { host, root } = subject;
  const source = `${root}/${name}-src`;
  const mountPoint = `${root}/${name}`;
  await host.mkdir(source, 0o755);
  await host.mkdir(mountPoint, 0o755);
  await host.writeFile(`${source}/greeting`, "served through FUSE");
  const daemon = await host.startDaemon({
    name: `${fuseProgram}:${name}`,
    command: fuseProgram,
    args: ["-f", source, mountPoint],
    scope: "agent",
    agent: contractAgent,
  });
  await settle(subject, `${fuseProgram} mounting ${mountPoint}`, async () => {
    return fuseMountAt(await host.mountInfo(), mountPoint) !== undefined;
  });
  return { source, mountPoint, pid: daemon.pid };
}

async function isListed(host: Host, mountPoint: string): Promise<boolean> {
  return fuseMountAt(await host.mountInfo(), mountPoint) !== undefined;
}

export function describeFuse(get: () => HostUnderTest): void {
  describe("FUSE (bindfs)", () => {
    // A failing case must not leave a mount or a daemon for the next one (or for the scratch dir's removal).
    afterEach(async () => {
      const { host, root } = get();
      for (const mount of (await host.mountInfo())
        .filter((entry) => entry.mountPoint.startsWith(`${root}/`))
        .reverse()) {
        await host.run("umount", ["-l", mount.mountPoint]);
      }
      for (const daemon of await host.daemons()) if (daemon.agent === contractAgent) await host.killProcess(daemon.pid);
    });

    it("serves a directory: listed as type fuse with the source, its own st_dev, reads and writes reach the source", async () => {
      const subject = get();
      const { host } = subject;
      const { source, mountPoint } = await serveDirectory(subject, "served");
      const entry = fuseMountAt(await host.mountInfo(), mountPoint);
      assert.equal(entry?.fsType, "fuse");
      assert.equal(entry?.source, source);
      assert.deepEqual(entry?.superOptions, ["rw", "user_id=0", "group_id=0", "default_permissions", "allow_other"]);
      assert.notEqual((await host.stat(mountPoint)).dev, (await host.stat(source)).dev);
      assert.equal(text(await host.readFile(`${mountPoint}/greeting`)), "served through FUSE");
      await host.writeFile(`${mountPoint}/reply`, "written through FUSE");
      assert.equal(text(await host.readFile(`${source}/reply`)), "written through FUSE");
      assert.deepEqual((await host.readdir(mountPoint)).sort(), ["greeting", "reply"]);
    });

    it("its daemon killed: stat of the mount point, reads and listings fail with ENOTCONN; the mount stays listed", async () => {
      const subject = get();
      const { host } = subject;
      const { mountPoint, pid } = await serveDirectory(subject, "dead");
      await host.killProcess(pid);
      assert.equal(await host.isProcessAlive(pid), false);
      await expectErrno(host.stat(mountPoint), "ENOTCONN");
      await expectErrno(host.lstat(mountPoint), "ENOTCONN");
      await expectErrno(host.readFile(`${mountPoint}/greeting`), "ENOTCONN");
      await expectErrno(host.readdir(mountPoint), "ENOTCONN");
      await expectErrno(host.writeFile(`${mountPoint}/new`, "x"), "ENOTCONN");
      assert.equal(fuseMountAt(await host.mountInfo(), mountPoint)?.fsType, "fuse");
    });

    it("umount of a mount whose daemon died works, and the directory under it answers again", async () => {
      const subject = get();
      const { host } = subject;
      const { mountPoint, pid } = await serveDirectory(subject, "unmounted");
      await host.killProcess(pid);
      const result = await host.run("umount", [mountPoint]);
      assert.equal(result.exitCode, 0, result.output);
      assert.equal(result.output, "");
      assert.equal(await isListed(host, mountPoint), false);
      assert.deepEqual(await host.readdir(mountPoint), []);
      await host.rmdir(mountPoint);
    });

    it("a lazy unmount (umount -l) detaches a dead mount and a live one, whose daemon then exits", async () => {
      const subject = get();
      const { host } = subject;
      const dead = await serveDirectory(subject, "lazy-dead");
      await host.killProcess(dead.pid);
      assert.equal((await host.run("umount", ["-l", dead.mountPoint])).exitCode, 0);
      assert.equal(await isListed(host, dead.mountPoint), false);
      assert.equal((await host.stat(dead.mountPoint)).type, "directory");

      const live = await serveDirectory(subject, "lazy-live");
      assert.equal((await host.run("umount", ["-l", live.mountPoint])).exitCode, 0);
      assert.equal(await isListed(host, live.mountPoint), false);
      await settle(subject, `${fuseProgram} (pid ${live.pid}) exiting after its unmount`, async () => {
        return !(await host.isProcessAlive(live.pid));
      });
      assert.equal(text(await host.readFile(`${live.source}/greeting`)), "served through FUSE");
    });

    it("umount of a live mount ends its daemon", async () => {
      const subject = get();
      const { host } = subject;
      const { mountPoint, pid } = await serveDirectory(subject, "stopped");
      const result = await host.run("umount", [mountPoint]);
      assert.equal(result.exitCode, 0, result.output);
      await settle(subject, `${fuseProgram} (pid ${pid}) exiting after its unmount`, async () => {
        return !(await host.isProcessAlive(pid));
      });
      assert.equal(await isListed(host, mountPoint), false);
    });
  });
}
