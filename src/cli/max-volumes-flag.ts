/**
 * `--max-volumes-per-node N` of `kvol csi-driver`, `kvol node` and `kvol up`: the
 * `max_volumes_per_node` a bundled driver answers NodeGetInfo with, which the kubelet copies into
 * the node's CSINode (`spec.drivers[].allocatable.count`) and the scheduler's NodeVolumeLimits obeys.
 */

/** CSINode's `allocatable.count` is an int32. */
export const csiNodeAllocatableCountMax = 2_147_483_647;

/** The flag's value as a count from 0 (no limit) to the int32 maximum; throws naming the flag otherwise. */
export function parseMaxVolumesPerNode(text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isInteger(value) || value < 0 || value > csiNodeAllocatableCountMax) {
    throw new Error(
      `--max-volumes-per-node must be a whole number from 0 to ${csiNodeAllocatableCountMax}, got ${JSON.stringify(text)}`,
    );
  }
  return value;
}
