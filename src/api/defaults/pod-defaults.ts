/** Defaults of pods and of the pod templates inside workloads (core/v1 and apps/v1 `SetDefaults_*`). */
import type { KindName, KObject } from "../objects.ts";
import { type Fields, fillMissing, isRecord, updateField, updateList } from "./fill.ts";

/** 0644: the mode secret, configMap, downwardAPI and projected files get unless told otherwise. */
const defaultVolumeFileMode = 0o644;
const defaultTerminationGracePeriodSeconds = 30;

function defaultVolume(volume: Fields): Fields {
  let next = volume;
  for (const source of ["secret", "configMap", "downwardAPI", "projected"]) {
    next = updateField(next, source, (value) => fillMissing(value, { defaultMode: defaultVolumeFileMode }));
  }
  return updateField(next, "hostPath", (hostPath) => fillMissing(hostPath, { type: "" }));
}

function defaultContainer(container: Fields): Fields {
  return fillMissing(container, {
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy:
      typeof container.image === "string" && container.image.endsWith(":latest") ? "Always" : "IfNotPresent",
  });
}

export function defaultPodSpec(spec: Fields): Fields {
  let next = fillMissing(spec, {
    restartPolicy: "Always",
    terminationGracePeriodSeconds: defaultTerminationGracePeriodSeconds,
    dnsPolicy: "ClusterFirst",
    schedulerName: "default-scheduler",
    securityContext: {},
    enableServiceLinks: true,
  });
  next = updateList(next, "volumes", defaultVolume);
  next = updateList(next, "containers", defaultContainer);
  return updateList(next, "initContainers", defaultContainer);
}

export function defaultPod(pod: KObject): KObject {
  if (!isRecord(pod.spec)) return pod;
  const spec = defaultPodSpec(pod.spec);
  return spec === pod.spec ? pod : { ...pod, spec };
}

const workloadSpecDefaults: Record<string, Fields> = {
  StatefulSet: {
    replicas: 1,
    podManagementPolicy: "OrderedReady",
    updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
    revisionHistoryLimit: 10,
  },
  ReplicaSet: { replicas: 1 },
  Deployment: {
    replicas: 1,
    strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
};

/** Defaults of a workload and of the pod template (and claim templates) inside it. */
export function defaultPodTemplateOwner(kind: KindName): (object: KObject) => KObject {
  const specDefaults = workloadSpecDefaults[kind] ?? {};
  return (object) => {
    if (!isRecord(object.spec)) return object;
    let spec = fillMissing(object.spec, specDefaults);
    spec = updateField(spec, "template", (template) => updateField(template, "spec", defaultPodSpec));
    spec = updateList(spec, "volumeClaimTemplates", (claim) =>
      updateField(claim, "spec", (claimSpec) => fillMissing(claimSpec, { volumeMode: "Filesystem" })),
    );
    return spec === object.spec ? object : { ...object, spec };
  };
}
