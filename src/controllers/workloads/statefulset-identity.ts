/**
 * The stable identity of a StatefulSet's pods (`pkg/controller/statefulset/stateful_set_utils.go`):
 * pod `<set>-<ordinal>` with hostname equal to its name, the labels `statefulset.kubernetes.io/pod-name`
 * and `apps.kubernetes.io/pod-index`, and for each volumeClaimTemplate its own claim
 * `<template>-<set>-<ordinal>`, mounted under the template's name. A replacement pod gets exactly
 * the same name and claims, which is why the old pod must be gone before it can exist.
 */
import { clone } from "../../api/client/copy.ts";
import type { PersistentVolumeClaim, Pod, StatefulSet } from "../../api/objects.ts";
import { controllerRevisionHashLabel, podIndexLabel, statefulSetPodNameLabel } from "./constants.ts";
import { newControllerRef } from "./controller-ref.ts";
import { podFromTemplate } from "./pod-from-template.ts";
import { computeTemplateHash } from "./template-hash.ts";

const statefulSetApiVersion = "apps/v1";
const statefulSetKind = "StatefulSet";
/** getParentNameAndOrdinal's `(.*)-([0-9]+)$`. */
const ordinalNamePattern = /^(.*)-([0-9]+)$/;

type Volume = NonNullable<NonNullable<Pod["spec"]>["volumes"]>[number];

function statefulSetPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ""}-${ordinal}`;
}

/** The set name and ordinal a pod name encodes, or undefined when it encodes none. */
export function parentAndOrdinal(pod: Pod): { parent: string; ordinal: number } | undefined {
  const match = ordinalNamePattern.exec(pod.metadata?.name ?? "");
  if (match === null) return undefined;
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) ? { parent: match[1] ?? "", ordinal } : undefined;
}

function claimNameFor(templateName: string, set: StatefulSet, ordinal: number): string {
  return `${templateName}-${set.metadata?.name ?? ""}-${ordinal}`;
}

/** The revision pods made from the set's current template carry (`<set>-<hash>`). */
export function statefulSetRevision(set: StatefulSet): string {
  return `${set.metadata?.name ?? ""}-${computeTemplateHash(set.spec?.template ?? {}, set.status?.collisionCount)}`;
}

export function revisionOfPod(pod: Pod): string | undefined {
  return pod.metadata?.labels?.[controllerRevisionHashLabel];
}

/** The claims pod `ordinal` uses, one per volumeClaimTemplate, labelled with the set's matchLabels. */
export function claimsForOrdinal(set: StatefulSet, ordinal: number): PersistentVolumeClaim[] {
  const matchLabels = set.spec?.selector?.matchLabels ?? {};
  return (set.spec?.volumeClaimTemplates ?? []).map((template) => {
    const copy = clone(template);
    return {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: {
        ...copy.metadata,
        name: claimNameFor(template.metadata?.name ?? "", set, ordinal),
        namespace: set.metadata?.namespace,
        labels: { ...copy.metadata?.labels, ...matchLabels },
      },
      spec: copy.spec ?? {},
    };
  });
}

/** Claim volumes first (in template order), then the template's other volumes (updateStorage). */
function volumesWithClaims(set: StatefulSet, ordinal: number, templateVolumes: readonly Volume[]): Volume[] {
  const claimTemplates = set.spec?.volumeClaimTemplates ?? [];
  const claimVolumes: Volume[] = claimTemplates.map((template) => ({
    name: template.metadata?.name ?? "",
    persistentVolumeClaim: { claimName: claimNameFor(template.metadata?.name ?? "", set, ordinal) },
  }));
  const claimVolumeNames = new Set(claimVolumes.map((volume) => volume.name));
  return [...claimVolumes, ...templateVolumes.filter((volume) => !claimVolumeNames.has(volume.name))];
}

/** Pod `ordinal` of `set`, ready to create (newVersionedStatefulSetPod at the update revision). */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const controllerRef = newControllerRef(set, statefulSetApiVersion, statefulSetKind);
  const pod = podFromTemplate(set.spec?.template ?? {}, set, controllerRef);
  const name = statefulSetPodName(set, ordinal);
  const { generateName: _unused, ...metadata } = pod.metadata ?? {};
  const spec = pod.spec ?? { containers: [] };
  const volumes = volumesWithClaims(set, ordinal, spec.volumes ?? []);
  const serviceName = set.spec?.serviceName;
  return {
    ...pod,
    metadata: {
      ...metadata,
      name,
      labels: {
        ...metadata.labels,
        [statefulSetPodNameLabel]: name,
        [podIndexLabel]: String(ordinal),
        [controllerRevisionHashLabel]: statefulSetRevision(set),
      },
    },
    spec: {
      ...spec,
      hostname: name,
      ...(serviceName ? { subdomain: serviceName } : {}),
      ...(volumes.length === 0 ? {} : { volumes }),
    },
  };
}
