/**
 * Where a bundled CSI driver keeps its volumes on a machine running `kvol up --host linux`: one
 * directory per driver, shared by the driver's controller process and every node plugin of it on
 * this machine, so a volume the controller creates is the one the nodes stage. The attachable
 * disks live in `DATA/disks` (sparse files attached as loop devices); the other drivers in
 * `DATA/csi/<driver>`.
 */
import { join } from "node:path";
import { diskDriverName } from "../csi/drivers/common/constants.ts";

/** The disks' directory under the data directory. */
export const disksDirName = "disks";
/** The other bundled drivers' directories under the data directory. */
export const csiStateDirName = "csi";

export function bundledDriverStateDir(dataDir: string, driverName: string): string {
  return driverName === diskDriverName ? join(dataDir, disksDirName) : join(dataDir, csiStateDirName, driverName);
}
