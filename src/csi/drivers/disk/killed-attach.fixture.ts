/**
 * Test fixture: a driver process killed in the middle of an attach. It attaches disk ARGV[3] of
 * the disks directory ARGV[2] to node ARGV[4] through LoopDiskBackend on this machine, and at the
 * instant the attachment's record would be renamed into place — after `losetup`, after the
 * temporary record was written — it sends itself SIGKILL, as an OOM kill or `kill -9` would.
 * ARGV[5] `fenceable` attaches as a fenceable backend (a loop device per node).
 */
import type { Host } from "../../../host/host.ts";
import { LinuxHost } from "../../../host/linux/linux-host.ts";
import { LoopDiskBackend } from "./loop-disk-backend.ts";

const [disksDir, diskId, nodeName, mode] = process.argv.slice(2);
if (disksDir === undefined || diskId === undefined || nodeName === undefined) {
  throw new Error("usage: killed-attach.fixture.ts DISKS_DIR DISK_ID NODE [fenceable]");
}

const linux = new LinuxHost({ nodeName });
const killedAtRename: Host = new Proxy(linux, {
  get(target, property, receiver) {
    if (property === "rename") {
      return async () => {
        process.kill(process.pid, "SIGKILL");
      };
    }
    const value = Reflect.get(target, property, receiver);
    return typeof value === "function" ? value.bind(target) : value;
  },
});

await new LoopDiskBackend({ host: killedAtRename, disksDir, fenceable: mode === "fenceable" }).attach(
  diskId,
  nodeName,
  {},
);
throw new Error("the attach finished: the process was not killed at its record's rename");
