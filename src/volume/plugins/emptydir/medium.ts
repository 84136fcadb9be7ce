/**
 * emptyDir storage media and how to tell, from the mount table, which one a directory is on
 * (Kubernetes' emptydir mountDetector and the huge-page helpers of v1helper).
 */
import type { Pod } from "kubernetes-types/core/v1.js";
import { formatQuantity, parseQuantity, type Quantity } from "../../../api/quantity.ts";
import type { MountInfo } from "../../../host/host.ts";
import { isPathWithin } from "../../../host/mount/mount-points.ts";
import type { Mounter } from "../../../host/mount/mounter.ts";
import { errorMessage } from "../../../runtime/error-message.ts";

/** `""` (node disk), `Memory` (tmpfs), `HugePages` or `HugePages-<size>` (hugetlbfs). */
export type StorageMedium = string;

export const mediumDefault = "";
export const mediumMemory = "Memory";
export const mediumHugePages = "HugePages";
const mediumHugePagesPrefix = "HugePages-";
const hugePagesResourcePrefix = "hugepages-";
const hugePagesPageSizeMountOption = "pagesize";
const tmpfsType = "tmpfs";
const hugetlbfsType = "hugetlbfs";

export function isHugePageMedium(medium: StorageMedium): boolean {
  return medium === mediumHugePages || medium.startsWith(mediumHugePagesPrefix);
}

/** The page size named by `HugePages-<size>`. */
export function hugePageSizeFromMedium(medium: StorageMedium): Quantity {
  if (!medium.startsWith(mediumHugePagesPrefix)) {
    throw new Error(`medium: ${medium} is not a hugepage medium with a size`);
  }
  return parseQuantity(medium.slice(mediumHugePagesPrefix.length));
}

/** What the mount table says about a directory. */
interface MountMedium {
  medium: StorageMedium;
  /** True when the directory itself is a mount point. */
  isMountPoint: boolean;
  /** The hugetlbfs page size, when the medium is a sized huge-page mount. */
  pageSize?: Quantity;
}

/** The filesystem holding `path`: the last (topmost) mount whose mount point contains it. */
function mountHolding(path: string, mounts: readonly MountInfo[]): MountInfo | undefined {
  let holder: MountInfo | undefined;
  for (const mount of mounts) {
    if (!isPathWithin(path, mount.mountPoint)) continue;
    if (holder === undefined || mount.mountPoint.length >= holder.mountPoint.length) holder = mount;
  }
  return holder;
}

/** `pagesize=2M` in the mount's options, read as binary (`2Mi`), as Kubernetes does. */
function pageSizeOf(mount: MountInfo): Quantity | undefined {
  const prefix = `${hugePagesPageSizeMountOption}=`;
  const option = [...mount.superOptions, ...mount.options].find((candidate) => candidate.startsWith(prefix));
  if (option === undefined) return undefined;
  const text = option.slice(prefix.length);
  return parseQuantity(text.endsWith("i") ? text : `${text}i`);
}

/**
 * The medium `path` is on (tmpfs → Memory, hugetlbfs → HugePages, else the node's disk) and whether
 * `path` is itself a mount point. The filesystem type comes from the mount table, where Kubernetes
 * asks statfs(2); both name the filesystem that holds the path.
 */
export async function getMountMedium(
  mounter: Mounter,
  path: string,
  requestedMedium: StorageMedium,
): Promise<MountMedium> {
  let notMountPoint: boolean;
  try {
    notMountPoint = await mounter.isLikelyNotMountPoint(path);
  } catch (err) {
    throw new Error(`IsLikelyNotMountPoint("${path}"): ${errorMessage(err)}`, { cause: err });
  }
  const isMountPoint = !notMountPoint;
  const holder = mountHolding(path, await mounter.list());
  if (holder?.fsType === tmpfsType) return { medium: mediumMemory, isMountPoint };
  if (holder?.fsType === hugetlbfsType) {
    if (requestedMedium === mediumHugePages) return { medium: mediumHugePages, isMountPoint };
    const pageSize = pageSizeOf(holder);
    return pageSize === undefined
      ? { medium: mediumHugePages, isMountPoint }
      : { medium: mediumHugePages, isMountPoint, pageSize };
  }
  return { medium: mediumDefault, isMountPoint };
}

/**
 * The `pagesize=<size>` option for a huge-page emptyDir, taken from the pod's huge-page requests:
 * `HugePages` needs every request to use one page size; `HugePages-<size>` needs a request of that size.
 */
export function pageSizeMountOption(medium: StorageMedium, pod: Pod): string {
  const mediumPageSize = medium === mediumHugePages ? undefined : hugePageSizeFromMedium(medium);
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  let pageSize: Quantity | undefined;
  for (const container of containers) {
    // Requests and limits must match for huge pages, so requests are enough.
    for (const resourceName of Object.keys(container.resources?.requests ?? {})) {
      if (!resourceName.startsWith(hugePagesResourcePrefix)) continue;
      const current = parseQuantity(resourceName.slice(hugePagesResourcePrefix.length));
      if (mediumPageSize === undefined) {
        if (pageSize !== undefined && !pageSize.equals(current)) {
          throw new Error(`medium: ${medium} can't be used if container requests multiple huge page sizes`);
        }
        pageSize = current;
      } else if (current.equals(mediumPageSize)) {
        pageSize = current;
      }
    }
  }
  if (pageSize === undefined) {
    throw new Error(`medium ${medium}: hugePages storage requested, but there is no resource request for huge pages`);
  }
  return `${hugePagesPageSizeMountOption}=${formatQuantity(pageSize)}`;
}
