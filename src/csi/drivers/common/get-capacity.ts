/**
 * GetCapacity for the bundled drivers whose volumes share one pool of bytes: a configured limit, or
 * else the filesystem that holds the volumes. Each volume's capacity is set aside from the pool when
 * it is created (thick accounting), so the answer falls as volumes are provisioned and rises as they
 * are deleted; it never exceeds the filesystem's free space. `maximum_volume_size` is what one new
 * volume could still get (the smaller of the driver's maximum and what is left), which the scheduler
 * prefers over the total when both are published.
 */
import { posix } from "node:path";
import { type FilesystemSpace, type Host, isHostError } from "../../../host/host.ts";
import type { GetCapacityRequest, GetCapacityResponse } from "../../proto/types.ts";
import { step } from "./host-failures.ts";

export interface CapacityPool {
  host: Host;
  /** The directory volumes are created in (statfs of its filesystem). */
  path: string;
  /** All volumes together may take at most this many bytes; undefined = the filesystem's size. */
  limitBytes?: number;
  /** The largest single volume the driver creates. */
  maxVolumeBytes: number;
}

/** What is left of the pool once `allocatedBytes` are set aside. */
export async function availableBytes(pool: CapacityPool, allocatedBytes: number): Promise<number> {
  const space = await step(`GetCapacity: statfs ${pool.path}`, () => statfsOfNearest(pool.host, pool.path));
  const poolBytes = pool.limitBytes ?? space.totalBytes;
  return Math.max(0, Math.min(space.freeBytes, poolBytes - allocatedBytes));
}

/** statfs of `path`, or of its nearest existing parent before the driver has made it. */
async function statfsOfNearest(host: Host, path: string): Promise<FilesystemSpace> {
  let current = path;
  for (;;) {
    try {
      return await host.statfs(current);
    } catch (error) {
      const parent = posix.dirname(current);
      if (!isHostError(error, "ENOENT") || parent === current) throw error;
      current = parent;
    }
  }
}

export function capacityResponse(available: number, maxVolumeBytes: number): GetCapacityResponse {
  return { availableCapacity: available, maximumVolumeSize: { value: Math.min(available, maxVolumeBytes) } };
}

/**
 * True when the request's accessible_topology names `key` with another value than `value`: the pool
 * is not reachable from that segment, and its capacity there is 0.
 */
export function topologyExcludes(request: GetCapacityRequest, key: string, value: string): boolean {
  const segments = request.accessibleTopology?.segments ?? {};
  return segments[key] !== undefined && segments[key] !== value;
}
