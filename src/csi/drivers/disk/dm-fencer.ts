/**
 * The node-fencing controller's fence for real disks (disk.csi.kvol.io over a fenceable
 * LoopDiskBackend): the dm device of every disk attached to the node is switched to the error
 * target, and the fence is confirmed by reading each device's live table back. It declares it
 * cannot fence when device-mapper is unavailable or the disks are not attached through it.
 */
import type { PersistentVolume } from "../../../api/objects.ts";
import type { FenceResult, StorageFencer } from "../../../controllers/nodefencing/storage-fencer.ts";
import type { Host } from "../../../host/host.ts";
import { diskDriverName } from "../common/constants.ts";
import { deviceMapperUnavailable, isErrorTable } from "./device-mapper.ts";
import type { LoopDiskBackend } from "./loop-disk-backend.ts";

export class DmDiskFencer implements StorageFencer {
  readonly name = `${diskDriverName} (device-mapper)`;

  constructor(
    private readonly host: Host,
    private readonly disks: LoopDiskBackend,
    /** How to attach them through device-mapper, for the refusal of disks that are not (`start with --fence-after`). */
    private readonly notFenceableHint?: string,
  ) {}

  /** A disk.csi.kvol.io volume (its handle is the disk id) of this backend. */
  covers(pv: PersistentVolume): boolean {
    const csi = pv.spec?.csi;
    return csi?.driver === diskDriverName && csi.volumeHandle !== undefined && csi.volumeHandle !== "";
  }

  /** The machine's lack comes first: it says what no setting of kvol can fix. */
  async unavailable(): Promise<string | undefined> {
    const missing = await deviceMapperUnavailable(this.host);
    if (missing !== undefined) return missing;
    if (!this.disks.fenceable) {
      return (
        "its disks are attached without device-mapper " +
        `(${this.notFenceableHint ?? "the disk backend was not made fenceable"})`
      );
    }
    return undefined;
  }

  async fence(nodeName: string): Promise<FenceResult> {
    const fenced = await this.disks.fenceNode(nodeName);
    const unconfirmed = fenced.filter((entry) => entry.table === undefined || !isErrorTable(entry.table));
    if (unconfirmed.length > 0) {
      return {
        confirmed: false,
        detail: `${unconfirmed.map((entry) => entry.device).join(", ")} still do(es) not map to the error target`,
      };
    }
    return {
      confirmed: true,
      detail:
        fenced.length === 0
          ? "no disk is attached to the node"
          : `${fenced.map((entry) => entry.device).join(", ")} now fail(s) every I/O (dm error target)`,
    };
  }

  heldBy(nodeName: string): Promise<readonly string[]> {
    return this.disks.devicesHeldBy(nodeName);
  }

  unfence(nodeName: string): Promise<void> {
    return this.disks.unfenceNode(nodeName);
  }
}
