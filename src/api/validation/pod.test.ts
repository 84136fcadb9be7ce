import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, dnsLabelMessage, problemsOf } from "./testing/test-support.ts";

type Container = Record<string, unknown> & { volumeMounts?: Record<string, unknown>[] };
type PodManifest = {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & { volumes: Record<string, unknown>[]; containers: Container[] };
};

/** A database pod: a claim for its data, a secret for its password, a memory-backed scratch dir. */
const pod: PodManifest = {
  metadata: { name: "db-0", namespace: "default", labels: { app: "db" } },
  spec: {
    volumes: [
      { name: "data", persistentVolumeClaim: { claimName: "data-db-0" } },
      {
        name: "password",
        secret: { secretName: "db-password", defaultMode: 0o400, items: [{ key: "pw", path: "pw" }] },
      },
      { name: "scratch", emptyDir: { medium: "Memory", sizeLimit: "256Mi" } },
      { name: "config", configMap: { name: "db-config" } },
      {
        name: "info",
        projected: {
          sources: [
            { downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] } },
            { configMap: { name: "db-config", items: [{ key: "a", path: "a.conf" }] } },
          ],
        },
      },
      { name: "inline", csi: { driver: "secrets-store.csi.k8s.io", volumeAttributes: { provider: "vault" } } },
    ],
    containers: [
      {
        name: "db",
        image: "postgres:16",
        volumeMounts: [
          { name: "data", mountPath: "/var/lib/postgresql/data" },
          { name: "password", mountPath: "/run/secrets", readOnly: true },
          { name: "scratch", mountPath: "/tmp" },
          { name: "config", mountPath: "/etc/db", subPath: "conf" },
          { name: "info", mountPath: "/etc/podinfo" },
          { name: "inline", mountPath: "/mnt/secrets" },
        ],
        resources: { requests: { memory: "512Mi", cpu: "250m" }, limits: { memory: "1Gi" } },
      },
    ],
    initContainers: [{ name: "init-perms", image: "busybox", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
    tolerations: [
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ],
  },
};

function withVolume(volume: Record<string, unknown>): PodManifest {
  return changed(pod, (copy) => {
    copy.spec.volumes.push(volume);
  });
}

describe("Pod volumes", () => {
  it("accepts a pod with a claim, a secret, a memory emptyDir and projected files", () => {
    assert.deepEqual(problemsOf("Pod", pod), []);
  });

  it("requires exactly one source per volume", () => {
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "cache" })), [
      "spec.volumes[6]: Required value: must specify a volume type",
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "cache", emptyDir: {}, hostPath: { path: "/cache" } })), [
      "spec.volumes[6].hostPath: Forbidden: may not specify more than 1 volume type",
    ]);
  });

  it("requires unique DNS-label names", () => {
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "data", emptyDir: {} })), [
      'spec.volumes[6].name: Duplicate value: "data"',
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "Cache_1", emptyDir: {} })), [
      `spec.volumes[6].name: Invalid value: "Cache_1": ${dnsLabelMessage}`,
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ emptyDir: {} })), ["spec.volumes[6].name: Required value"]);
  });

  it("requires the name of the claim, secret or config map", () => {
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", persistentVolumeClaim: {} })), [
      "spec.volumes[6].persistentVolumeClaim.claimName: Required value",
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", secret: {} })), [
      "spec.volumes[6].secret.secretName: Required value",
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", configMap: { items: [{ key: "a", path: "../a" }] } })), [
      "spec.volumes[6].configMap.name: Required value",
      "spec.volumes[6].configMap.items[0].path: Invalid value: \"../a\": must not contain '..'",
    ]);
  });

  it("checks hostPath volumes", () => {
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", hostPath: {} })), [
      "spec.volumes[6].hostPath.path: Required value",
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", hostPath: { path: "/dev/sda", type: "Device" } })), [
      'spec.volumes[6].hostPath.type: Unsupported value: "Device": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
    ]);
  });

  it("checks emptyDir medium and size limit", () => {
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", emptyDir: { medium: "HugePages-2Mi" } })), []);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", emptyDir: { medium: "memory" } })), [
      'spec.volumes[6].emptyDir.medium: Unsupported value: "memory": supported values: "", "HugePages", "HugePages-<size>", "Memory"',
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", emptyDir: { sizeLimit: "1 GB" } })), [
      "spec.volumes[6].emptyDir.sizeLimit: Invalid value: \"1 GB\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ]);
    assert.deepEqual(problemsOf("Pod", withVolume({ name: "x", emptyDir: { sizeLimit: "-1Gi" } })), [
      "spec.volumes[6].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity",
    ]);
  });

  it("checks the claim template of an ephemeral volume and the claim name it makes", () => {
    const ephemeral = withVolume({
      name: "scratch-claim",
      ephemeral: {
        volumeClaimTemplate: { metadata: { name: "x" }, spec: { resources: { requests: { storage: "1Gi" } } } },
      },
    });
    assert.deepEqual(problemsOf("Pod", ephemeral), [
      "spec.volumes[6].ephemeral.volumeClaimTemplate.metadata.name: Forbidden: cannot be set",
      "spec.volumes[6].ephemeral.volumeClaimTemplate.spec.accessModes: Required value: at least 1 access mode is required",
    ]);
  });
});

describe("Pod containers", () => {
  it("requires containers, each with a unique name and an image", () => {
    const none = changed(pod, (copy) => {
      copy.spec.containers = [];
      copy.spec.initContainers = [];
    });
    assert.deepEqual(problemsOf("Pod", none), ["spec.containers: Required value"]);
    const twins = changed(pod, (copy) => {
      copy.spec.containers.push({ name: "db" }, { image: "nginx" });
    });
    assert.deepEqual(problemsOf("Pod", twins), [
      "spec.containers[1].image: Required value",
      'spec.containers[1].name: Duplicate value: "db"',
      "spec.containers[2].name: Required value",
    ]);
  });

  it("requires init container names to differ from container names", () => {
    const clash = changed(pod, (copy) => {
      copy.spec.initContainers = [{ name: "db", image: "busybox" }];
    });
    assert.deepEqual(problemsOf("Pod", clash), ['spec.initContainers[0].name: Duplicate value: "db"']);
  });

  it("says which mount names no volume", () => {
    const typo = changed(pod, (copy) => {
      copy.spec.containers[0]?.volumeMounts?.push({ name: "dta", mountPath: "/backup" });
    });
    assert.deepEqual(problemsOf("Pod", typo), ['spec.containers[0].volumeMounts[6].name: Not found: "dta"']);
  });

  it("checks init container mounts too", () => {
    const typo = changed(pod, (copy) => {
      copy.spec.initContainers = [{ name: "init", image: "busybox", volumeMounts: [{ name: "data" }] }];
    });
    assert.deepEqual(problemsOf("Pod", typo), ["spec.initContainers[0].volumeMounts[0].mountPath: Required value"]);
  });

  it("requires unique mount paths within a container", () => {
    const twice = changed(pod, (copy) => {
      copy.spec.containers[0]?.volumeMounts?.push({ name: "scratch", mountPath: "/tmp" });
    });
    assert.deepEqual(problemsOf("Pod", twice), [
      'spec.containers[0].volumeMounts[6].mountPath: Invalid value: "/tmp": must be unique',
    ]);
  });

  it("accepts a raw block device from a claim and refuses one from other sources", () => {
    const block = changed(pod, (copy) => {
      copy.spec.volumes.push({ name: "raw", persistentVolumeClaim: { claimName: "raw" } });
      Object.assign(copy.spec.containers[0] ?? {}, { volumeDevices: [{ name: "raw", devicePath: "/dev/xvda" }] });
    });
    assert.deepEqual(problemsOf("Pod", block), []);
    const fromSecret = changed(block, (copy) => {
      Object.assign(copy.spec.containers[0] ?? {}, { volumeDevices: [{ name: "password", devicePath: "/dev/xvdb" }] });
    });
    assert.deepEqual(problemsOf("Pod", fromSecret), [
      'spec.containers[0].volumeMounts[1].name: Invalid value: "password": must not already exist in volumeDevices',
      'spec.containers[0].volumeDevices[0].name: Invalid value: "password": can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
      'spec.containers[0].volumeDevices[0].name: Invalid value: "password": must not already exist in volumeMounts',
    ]);
  });

  it("refuses two devices at one path", () => {
    const clash = changed(pod, (copy) => {
      copy.spec.volumes.push(
        { name: "raw-a", persistentVolumeClaim: { claimName: "a" } },
        { name: "raw-b", persistentVolumeClaim: { claimName: "b" } },
      );
      Object.assign(copy.spec.containers[0] ?? {}, {
        volumeDevices: [
          { name: "raw-a", devicePath: "/dev/xvda" },
          { name: "raw-b", devicePath: "/dev/xvda" },
        ],
      });
    });
    assert.deepEqual(problemsOf("Pod", clash), [
      'spec.containers[0].volumeDevices[1].devicePath: Invalid value: "/dev/xvda": must be unique',
    ]);
  });

  it("requires Bidirectional propagation to be privileged", () => {
    const shared = changed(pod, (copy) => {
      copy.spec.containers[0]?.volumeMounts?.push({
        name: "scratch",
        mountPath: "/shared",
        mountPropagation: "Bidirectional",
      });
    });
    assert.deepEqual(problemsOf("Pod", shared), [
      "spec.containers[0].volumeMounts[6].mountPropagation: Forbidden: Bidirectional mount propagation is available only to privileged containers",
    ]);
  });

  it("checks resource quantities and requests against limits", () => {
    const greedy = changed(pod, (copy) => {
      Object.assign(copy.spec.containers[0] ?? {}, {
        resources: { requests: { memory: "2Gi" }, limits: { memory: "1Gi" } },
      });
    });
    assert.deepEqual(problemsOf("Pod", greedy), [
      'spec.containers[0].resources.requests[memory]: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi',
    ]);
  });

  it("checks the node name and tolerations", () => {
    const odd = changed(pod, (copy) => {
      copy.spec.nodeName = "Node_1";
      copy.spec.tolerations = [{ operator: "Equal", value: "x" }];
    });
    const problems = problemsOf("Pod", odd);
    assert.match(problems[0] ?? "", /^spec\.nodeName: Invalid value: "Node_1": a lowercase RFC 1123 subdomain/);
    assert.equal(
      problems[1],
      'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    );
  });
});

describe("Pod updates", () => {
  const forbiddenPrefix =
    "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

  it("allows a new image and an added toleration", () => {
    const updated = changed(pod, (copy) => {
      Object.assign(copy.spec.containers[0] ?? {}, { image: "postgres:17" });
      (copy.spec.tolerations as unknown[]).push({ key: "maintenance", operator: "Exists" });
    });
    assert.deepEqual(problemsOf("Pod", updated, pod), []);
  });

  it("refuses a change of volumes", () => {
    const moreVolumes = withVolume({ name: "logs", emptyDir: {} });
    assert.deepEqual(problemsOf("Pod", moreVolumes, pod), [`${forbiddenPrefix}\nchanged: spec.volumes`]);
  });

  it("lets the scheduler set the node once", () => {
    const scheduled = changed(pod, (copy) => {
      copy.spec.nodeName = "node-1";
    });
    assert.deepEqual(problemsOf("Pod", scheduled, pod), []);
    const moved = changed(scheduled, (copy) => {
      copy.spec.nodeName = "node-2";
    });
    assert.deepEqual(problemsOf("Pod", moved, scheduled), [`${forbiddenPrefix}\nchanged: spec.nodeName`]);
  });

  it("refuses adding a container", () => {
    const sidecar = changed(pod, (copy) => {
      copy.spec.containers.push({ name: "sidecar", image: "envoy" });
    });
    assert.deepEqual(problemsOf("Pod", sidecar, pod), [
      "spec.containers: Forbidden: pod updates may not add or remove containers",
    ]);
  });

  it("refuses removing a toleration and raising the deadline", () => {
    const withDeadline = changed(pod, (copy) => {
      copy.spec.activeDeadlineSeconds = 60;
    });
    const changedPod = changed(withDeadline, (copy) => {
      copy.spec.tolerations = [];
      copy.spec.activeDeadlineSeconds = 120;
    });
    assert.deepEqual(problemsOf("Pod", changedPod, withDeadline), [
      "spec.activeDeadlineSeconds: Invalid value: 120: must be less than or equal to previous value",
      "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds",
    ]);
  });

  it("lets scheduling gates be removed but not added", () => {
    const gated = changed(pod, (copy) => {
      copy.spec.schedulingGates = [{ name: "example.com/quota" }];
    });
    assert.deepEqual(problemsOf("Pod", pod, gated), []);
    assert.deepEqual(problemsOf("Pod", gated, pod), [
      "spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'example.com/quota'",
    ]);
  });

  it("treats equal quantities written differently as unchanged", () => {
    const rewritten = changed(pod, (copy) => {
      Object.assign(copy.spec.containers[0] ?? {}, {
        resources: { requests: { memory: "536870912", cpu: "0.25" }, limits: { memory: "1024Mi" } },
      });
    });
    assert.deepEqual(problemsOf("Pod", rewritten, pod), []);
  });
});
