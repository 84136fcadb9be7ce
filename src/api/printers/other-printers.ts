/**
 * The smaller kinds: namespaces (STATUS), config maps and secrets (DATA), CSI drivers and nodes,
 * leases (HOLDER), each as `kubectl get` shows it; anything else gets NAME and AGE.
 */
import type {
  ConfigMap,
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  KObject,
  Lease,
  Namespace,
  Secret,
} from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { quantityText } from "./quantity-text.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter } from "./table-types.ts";

const dataColumn = column("Data", "The number of keys in the data.", { type: "integer" });

export const namespacePrinter: ObjectPrinter<Namespace> = {
  columns: [nameColumn, column("Status", "The status of the namespace"), ageColumn],
  row(namespace, nowMs) {
    return {
      cells: [
        namespace.metadata?.name ?? "",
        namespace.status?.phase ?? "",
        ageSince(namespace.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const configMapPrinter: ObjectPrinter<ConfigMap> = {
  columns: [nameColumn, dataColumn, ageColumn],
  row(configMap, nowMs) {
    const keys = Object.keys(configMap.data ?? {}).length + Object.keys(configMap.binaryData ?? {}).length;
    return { cells: [configMap.metadata?.name ?? "", keys, ageSince(configMap.metadata?.creationTimestamp, nowMs)] };
  },
};

export const secretPrinter: ObjectPrinter<Secret> = {
  columns: [nameColumn, column("Type", "The type of the secret"), dataColumn, ageColumn],
  row(secret, nowMs) {
    // Counts keys only: a secret's values never reach a table.
    const keys = Object.keys(secret.data ?? {}).length + Object.keys(secret.stringData ?? {}).length;
    return {
      cells: [
        secret.metadata?.name ?? "",
        secret.type ?? "Opaque",
        keys,
        ageSince(secret.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const csiDriverPrinter: ObjectPrinter<CSIDriver> = {
  columns: [
    nameColumn,
    column("AttachRequired", "Indicates this CSI volume driver requires an attach operation", { type: "boolean" }),
    column(
      "PodInfoOnMount",
      "Indicates this CSI volume driver requires additional pod information during mount operations",
      {
        type: "boolean",
      },
    ),
    column("Modes", "Indicates volume lifecycle modes supported by this driver"),
    ageColumn,
  ],
  row(driver, nowMs) {
    const modes = driver.spec.volumeLifecycleModes ?? ["Persistent"];
    return {
      cells: [
        driver.metadata?.name ?? "",
        driver.spec.attachRequired ?? true,
        driver.spec.podInfoOnMount ?? false,
        modes.length === 0 ? "<none>" : modes.join(","),
        ageSince(driver.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const csiNodePrinter: ObjectPrinter<CSINode> = {
  columns: [
    nameColumn,
    column("Drivers", "Drivers indicates the number of CSI drivers registered on the node", { type: "integer" }),
    ageColumn,
  ],
  row(node, nowMs) {
    return {
      cells: [node.metadata?.name ?? "", node.spec.drivers.length, ageSince(node.metadata?.creationTimestamp, nowMs)],
    };
  },
};

/** NAME, STORAGECLASSNAME, CAPACITY (printers.go printCSIStorageCapacity; no AGE column, as upstream). */
export const csiStorageCapacityPrinter: ObjectPrinter<CSIStorageCapacity> = {
  columns: [
    nameColumn,
    column("StorageClassName", "The name of the StorageClass that the reported capacity applies to."),
    column(
      "Capacity",
      "Capacity is the value reported by the CSI driver in its GetCapacityResponse for a GetCapacityRequest with topology and parameters that match the previous fields.",
    ),
  ],
  row(capacity) {
    return {
      cells: [capacity.metadata?.name ?? "", capacity.storageClassName, quantityText(capacity.capacity) || "<unset>"],
    };
  },
};

export const leasePrinter: ObjectPrinter<Lease> = {
  columns: [nameColumn, column("Holder", "The holder of the lease"), ageColumn],
  row(lease, nowMs) {
    return {
      cells: [
        lease.metadata?.name ?? "",
        lease.spec?.holderIdentity ?? "",
        ageSince(lease.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};

export const nameAgePrinter: ObjectPrinter<KObject> = {
  columns: [nameColumn, ageColumn],
  row(object, nowMs) {
    return { cells: [object.metadata?.name ?? "", ageSince(object.metadata?.creationTimestamp, nowMs)] };
  },
};
