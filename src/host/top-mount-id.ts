/**
 * Which mount serves a path: the top mount whose mount point contains it (the longest mount point;
 * of mounts stacked on one point, the last in the table). Shared by the real and the simulated host.
 */
export function topMountIdAt(
  mounts: Iterable<{ readonly id: number; readonly mountPoint: string }>,
  path: string,
): number | undefined {
  let bestId: number | undefined;
  let bestLength = -1;
  for (const mount of mounts) {
    const point = mount.mountPoint;
    const contains = path === point || path.startsWith(point === "/" ? "/" : `${point}/`);
    if (contains && point.length >= bestLength) {
      bestId = mount.id;
      bestLength = point.length;
    }
  }
  return bestId;
}
