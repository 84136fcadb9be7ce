/**
 * The columns of `kubectl get statefulsets|deployments|replicasets`: replica counts, age, and with
 * `-o wide` the containers, their images and the selector.
 */
import type { Container } from "kubernetes-types/core/v1.js";
import type { Deployment, ReplicaSet, StatefulSet } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { labelSelectorText } from "./label-selector-text.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter } from "./table-types.ts";

export const containersColumn = column("Containers", "Names of each container in the template.", { priority: 1 });
export const imagesColumn = column("Images", "Images referenced by each container in the template.", { priority: 1 });
const selectorColumn = column(
  "Selector",
  "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
  {
    priority: 1,
  },
);

/** The template's container names and images, comma-joined, as kubectl lays them out. */
export function containerCells(containers: readonly Container[] | undefined): [string, string] {
  const list = containers ?? [];
  return [list.map((c) => c.name).join(","), list.map((c) => c.image ?? "").join(",")];
}

export const statefulSetPrinter: ObjectPrinter<StatefulSet> = {
  columns: [
    nameColumn,
    column("Ready", "Number of the pod with ready state"),
    ageColumn,
    containersColumn,
    imagesColumn,
  ],
  row(set, nowMs) {
    const desired = set.spec?.replicas ?? 1;
    return {
      cells: [
        set.metadata?.name ?? "",
        `${set.status?.readyReplicas ?? 0}/${desired}`,
        ageSince(set.metadata?.creationTimestamp, nowMs),
        ...containerCells(set.spec?.template.spec?.containers),
      ],
    };
  },
};

export const deploymentPrinter: ObjectPrinter<Deployment> = {
  columns: [
    nameColumn,
    column("Ready", "Number of the pod with ready state"),
    column(
      "Up-to-date",
      "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
      {
        type: "integer",
      },
    ),
    column(
      "Available",
      "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
      {
        type: "integer",
      },
    ),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(deployment, nowMs) {
    const status = deployment.status;
    return {
      cells: [
        deployment.metadata?.name ?? "",
        `${status?.readyReplicas ?? 0}/${deployment.spec?.replicas ?? 1}`,
        status?.updatedReplicas ?? 0,
        status?.availableReplicas ?? 0,
        ageSince(deployment.metadata?.creationTimestamp, nowMs),
        ...containerCells(deployment.spec?.template.spec?.containers),
        labelSelectorText(deployment.spec?.selector),
      ],
    };
  },
};

export const replicaSetPrinter: ObjectPrinter<ReplicaSet> = {
  columns: [
    nameColumn,
    column("Desired", "Number of desired pods.", { type: "integer" }),
    column("Current", "Number of actual pods.", { type: "integer" }),
    column("Ready", "Number of ready pods.", { type: "integer" }),
    ageColumn,
    containersColumn,
    imagesColumn,
    selectorColumn,
  ],
  row(set, nowMs) {
    return {
      cells: [
        set.metadata?.name ?? "",
        set.spec?.replicas ?? 1,
        set.status?.replicas ?? 0,
        set.status?.readyReplicas ?? 0,
        ageSince(set.metadata?.creationTimestamp, nowMs),
        ...containerCells(set.spec?.template?.spec?.containers),
        labelSelectorText(set.spec?.selector),
      ],
    };
  },
};
