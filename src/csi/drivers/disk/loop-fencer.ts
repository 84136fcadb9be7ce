/**
 * The node-fencing controller's fence for real disks (disk.csi.kvol.io over a fenceable
 * LoopDiskBackend): every loop device the node has over a disk gets an offset past the disk's end
 * (loop-fence.ts), and the fence is confirmed by reading each device's live size (0) and offset
 * back. It declares it cannot fence when a probe on a scratch loop device fails — no losetup, no
 * perl, no loop driver — or when the disks are not attached through a loop device per node.
 */
import type { PersistentVolume } from "../../../api/objects.ts";
import type { FenceResult, StorageFencer } from "../../../controllers/nodefencing/storage-fencer.ts";
import type { Host } from "../../../host/host.ts";
import { diskDriverName } from "../common/constants.ts";
import type { LoopDiskBackend } from "./loop-disk-backend.ts";
import { isFenced, loopFenceUnavailable } from "./loop-fence.ts";

/** The scratch file of this process's probe, in the disks directory (`kvol up` releases what a killed one left). */
export function fenceProbeFile(disksDir: string): string {
  return `${disksDir}/fence-probe-${process.pid}.img`;
}

export class LoopDiskFencer implements StorageFencer {
  readonly name = `${diskDriverName} (loop device)`;
  /** Set once a probe succeeded: the kernel's loop driver does not go away. */
  private proven = false;

  constructor(
    private readonly host: Host,
    private readonly disks: LoopDiskBackend,
    /** How to attach them a loop device per node, for the refusal of disks that are not (`start with --fence-after`). */
    private readonly notFenceableHint?: string,
  ) {}

  /** A disk.csi.kvol.io volume (its handle is the disk id) of this backend. */
  covers(pv: PersistentVolume): boolean {
    const csi = pv.spec?.csi;
    return csi?.driver === diskDriverName && csi.volumeHandle !== undefined && csi.volumeHandle !== "";
  }

  /** The machine's lack comes first: it says what no setting of kvol can fix. */
  async unavailable(): Promise<string | undefined> {
    if (!this.proven) {
      await this.host.mkdir(this.disks.disksDir, 0o700, { recursive: true });
      const missing = await loopFenceUnavailable(this.host, fenceProbeFile(this.disks.disksDir));
      if (missing !== undefined) return missing;
      this.proven = true;
    }
    if (!this.disks.fenceable) {
      return (
        "its disks are attached through one loop device shared by every node " +
        `(${this.notFenceableHint ?? "the disk backend was not made fenceable"})`
      );
    }
    return undefined;
  }

  async fence(nodeName: string): Promise<FenceResult> {
    const fenced = await this.disks.fenceNode(nodeName);
    const unconfirmed = fenced.filter((state) => !isFenced(state));
    if (unconfirmed.length > 0) {
      return {
        confirmed: false,
        detail: unconfirmed
          .map((state) => `${state.device} still has ${state.sizeSectors} sectors at offset ${state.offsetBytes}`)
          .join(", "),
      };
    }
    return {
      confirmed: true,
      detail:
        fenced.length === 0
          ? "no disk is attached to the node"
          : `${fenced.map((state) => state.device).join(", ")} now fail(s) every I/O (loop device's offset moved past the disk's end)`,
    };
  }

  heldBy(nodeName: string): Promise<readonly string[]> {
    return this.disks.devicesHeldBy(nodeName);
  }

  unfence(nodeName: string): Promise<void> {
    return this.disks.unfenceNode(nodeName);
  }
}
