/** Defaults of the storage kinds (core/v1 and storage.k8s.io/v1 `SetDefaults_*`). */
import type { KObject } from "../objects.ts";
import { type Fields, fillMissing, isRecord, updateField } from "./fill.ts";

function withSpec(object: KObject, fn: (spec: Fields) => Fields): KObject {
  const spec = isRecord(object.spec) ? object.spec : undefined;
  if (spec === undefined) return object;
  const next = fn(spec);
  return next === spec ? object : { ...object, spec: next };
}

export function defaultPersistentVolume(pv: KObject): KObject {
  return withSpec(pv, (spec) => {
    const filled = fillMissing(spec, { persistentVolumeReclaimPolicy: "Retain", volumeMode: "Filesystem" });
    return updateField(filled, "hostPath", (hostPath) => fillMissing(hostPath, { type: "" }));
  });
}

export function defaultPersistentVolumeClaim(pvc: KObject): KObject {
  return withSpec(pvc, (spec) => fillMissing(spec, { volumeMode: "Filesystem" }));
}

export function defaultStorageClass(sc: KObject): KObject {
  return fillMissing(sc as Fields, { reclaimPolicy: "Delete", volumeBindingMode: "Immediate" }) as KObject;
}

export function defaultCsiDriver(driver: KObject): KObject {
  return withSpec(driver, (spec) =>
    fillMissing(spec, {
      attachRequired: true,
      podInfoOnMount: false,
      requiresRepublish: false,
      storageCapacity: false,
      seLinuxMount: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      volumeLifecycleModes: ["Persistent"],
    }),
  );
}
