/**
 * A container's resource requests and limits as a downward API file (Kubernetes'
 * ExtractResourceValueByContainerNameAndNodeAllocatable): the value divided by `divisor`, rounded up.
 * An unset limit reads as the node's allocatable amount, since that is what the container can use.
 */
import type { Container, Pod, ResourceFieldSelector } from "kubernetes-types/core/v1.js";
import { parseQuantity, type Quantity } from "../../../api/quantity.ts";

/** Limits that fall back to node allocatable when a container does not set them. */
const limitsDefaultedFromNode = ["cpu", "memory", "ephemeral-storage"];

function findContainer(pod: Pod, name: string): Container {
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  const container = containers.find((candidate) => candidate.name === name);
  if (container === undefined) throw new Error(`container ${name} not found`);
  return container;
}

/** ceil(a / b) for positive b. */
function ceilDivide(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return quotient * b === a || a < 0n ? quotient : quotient + 1n;
}

function divided(value: Quantity, divisor: Quantity, resourceName: string): string {
  if (resourceName === "cpu") return String(ceilDivide(value.toMilli(), divisor.toMilli()));
  return String(ceilDivide(value.toBytes(), divisor.toBytes()));
}

function quantityOrZero(text: string | undefined): Quantity {
  return parseQuantity(text ?? "0");
}

export function extractResourceValue(
  selector: ResourceFieldSelector,
  pod: Pod,
  nodeAllocatable: Readonly<Record<string, string>> | undefined,
): string {
  const container = findContainer(pod, selector.containerName ?? "");
  const divisorText = selector.divisor === undefined ? "1" : String(selector.divisor);
  const divisor = parseQuantity(divisorText).isZero() ? parseQuantity("1") : parseQuantity(divisorText);
  const [kind, resourceName = ""] = selector.resource.split(/\.(.*)/s);
  const known = ["cpu", "memory", "ephemeral-storage"].includes(resourceName) || resourceName.startsWith("hugepages-");
  if ((kind !== "limits" && kind !== "requests") || !known) {
    throw new Error(`unsupported container resource : ${selector.resource}`);
  }
  if (kind === "requests") {
    return divided(quantityOrZero(container.resources?.requests?.[resourceName]), divisor, resourceName);
  }
  let limit = container.resources?.limits?.[resourceName];
  if (limit === undefined && limitsDefaultedFromNode.includes(resourceName)) limit = nodeAllocatable?.[resourceName];
  return divided(quantityOrZero(limit), divisor, resourceName);
}
