/**
 * The size of a Memory emptyDir's tmpfs (Kubernetes' calculateEmptyDirMemorySize): the node's
 * allocatable memory, lowered to the pod's memory limit and then to the volume's `sizeLimit` when
 * those are positive and smaller. Unknown everywhere → no `size=` option (the kernel's 50 % of RAM).
 */
import type { Container, Pod } from "kubernetes-types/core/v1.js";
import { parseQuantity } from "../../../api/quantity.ts";

function memoryLimitBytes(container: Container): number | undefined {
  const limit = container.resources?.limits?.memory;
  return limit === undefined ? undefined : Number(parseQuantity(limit).toBytes());
}

/**
 * The pod's memory limit as its cgroup gets it: the sum over app containers (each must have a
 * limit, or the pod is unlimited), or the largest init container limit when that is higher.
 */
function podMemoryLimitBytes(pod: Pod): number | undefined {
  let sum = 0;
  for (const container of pod.spec?.containers ?? []) {
    const limit = memoryLimitBytes(container);
    if (limit === undefined) return undefined;
    sum += limit;
  }
  for (const container of pod.spec?.initContainers ?? []) {
    const limit = memoryLimitBytes(container);
    if (limit === undefined) return undefined;
    sum = Math.max(sum, limit);
  }
  return sum;
}

/** The node's allocatable memory in bytes, when the node reported it. */
export function allocatableMemoryBytes(allocatable: Readonly<Record<string, string>> | undefined): number | undefined {
  const memory = allocatable?.memory;
  return memory === undefined ? undefined : Number(parseQuantity(memory).toBytes());
}

/** Lowers `current` to `candidate` when the candidate is positive and not larger. */
function lowerTo(current: number | undefined, candidate: number | undefined): number | undefined {
  if (candidate === undefined || candidate <= 0) return current;
  if (current === undefined || candidate <= current) return candidate;
  return current;
}

export function emptyDirMemorySizeBytes(
  allocatableMemoryBytes: number | undefined,
  sizeLimit: string | undefined,
  pod: Pod,
): number | undefined {
  let size = allocatableMemoryBytes;
  size = lowerTo(size, podMemoryLimitBytes(pod));
  const volumeLimit = sizeLimit === undefined ? undefined : Number(parseQuantity(sizeLimit).toBytes());
  return lowerTo(size, volumeLimit);
}
