/**
 * API defaulting: the values kube-apiserver fills in when a field is omitted (the generated
 * `SetDefaults_*` functions), for the fields the storage loops read. Controllers rely on them — the
 * PV controller treats a StorageClass without `volumeBindingMode` as an error, exactly because the
 * API server always sets it — so every write through the store is defaulted, in every mode.
 *
 * Defaulting never changes a field that is set, and never mutates its input: an object that needs
 * a default gets a copy of the part that changes.
 */
import type { KindName, KObject } from "../objects.ts";
import { defaultJob } from "./job-defaults.ts";
import { defaultPod, defaultPodTemplateOwner } from "./pod-defaults.ts";
import { mergeSecretStringData } from "./secret-string-data.ts";
import { defaultService } from "./service-defaults.ts";
import {
  defaultCsiDriver,
  defaultPersistentVolume,
  defaultPersistentVolumeClaim,
  defaultStorageClass,
} from "./storage-defaults.ts";

type Defaulter = (object: KObject) => KObject;

const DEFAULTERS: Partial<Record<KindName, Defaulter>> = {
  Pod: defaultPod,
  PersistentVolume: defaultPersistentVolume,
  PersistentVolumeClaim: defaultPersistentVolumeClaim,
  StorageClass: defaultStorageClass,
  CSIDriver: defaultCsiDriver,
  StatefulSet: defaultPodTemplateOwner("StatefulSet"),
  ReplicaSet: defaultPodTemplateOwner("ReplicaSet"),
  Deployment: defaultPodTemplateOwner("Deployment"),
  Job: defaultJob,
  Service: defaultService,
  Secret: (input) => {
    const secret = mergeSecretStringData(input);
    return secret.type === undefined ? { ...secret, type: "Opaque" } : secret;
  },
};

/** The object with Kubernetes' defaults filled in (the same object when nothing was missing). */
export function applyDefaults(kind: KindName, object: KObject): KObject {
  const defaulter = DEFAULTERS[kind];
  return defaulter ? defaulter(object) : object;
}
