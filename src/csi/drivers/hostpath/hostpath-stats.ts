/**
 * NodeGetVolumeStats of a hostpath volume: how full it is, and whether its mount still works. A
 * path that cannot be reached (a corrupted mount) or no longer shows the volume is reported as an
 * abnormal volume condition (VOLUME_CONDITION), which is how a CO learns of it without a failed call.
 */
import type { Host } from "../../../host/host.ts";
import { CsiError } from "../../grpc/errors.ts";
import type { NodeGetVolumeStatsResponse } from "../../proto/types.ts";
import { volumeTreeEntriesMax } from "../common/constants.ts";
import { step } from "../common/host-failures.ts";
import { mountStateAt, showsSameFile } from "../common/mount-state.ts";
import type { VolumeRecord } from "../common/volume-catalog.ts";
import { treeUsage } from "../common/volume-tree.ts";

const rpc = "NodeGetVolumeStats";

export async function volumeStats(
  host: Host,
  record: VolumeRecord,
  volumePath: string,
  dataPath: string,
): Promise<NodeGetVolumeStatsResponse> {
  const state = await step(`${rpc}: checking ${volumePath}`, () => mountStateAt(host, volumePath));
  if (state.kind === "absent") {
    throw new CsiError("NotFound", `${rpc}: volume_path ${volumePath} does not exist`);
  }
  if (state.kind === "corrupted") return abnormal(`${volumePath} is a corrupted mount: ${state.error.message}`);
  if (state.kind === "notMounted") return abnormal(`volume ${record.volumeId} is not mounted at ${volumePath}`);
  const total = record.capacityBytes;
  if (record.accessType === "block") return healthy(total, 0);
  const showsVolume = await step(`${rpc}: checking ${volumePath}`, () => showsSameFile(host, volumePath, dataPath));
  if (!showsVolume) return abnormal(`${volumePath} shows another filesystem than volume ${record.volumeId}`);
  const usage = await step(`${rpc}: measuring ${dataPath}`, () => treeUsage(host, dataPath, volumeTreeEntriesMax));
  return healthy(total, usage.usedBytes);
}

/** The usage of a working volume; a block volume reports 0 used, since only the pod knows what it holds. */
function healthy(total: number, used: number): NodeGetVolumeStatsResponse {
  return {
    usage: [{ total, used, available: Math.max(0, total - used), unit: "BYTES" }],
    volumeCondition: { abnormal: false, message: "" },
  };
}

function abnormal(message: string): NodeGetVolumeStatsResponse {
  return { usage: [], volumeCondition: { abnormal: true, message } };
}
