import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseManifests } from "../../cmd/manifests.ts";
import {
  claimYaml,
  podUsingClaimYaml,
  podYaml,
  storageClassYaml,
  webDeploymentYaml,
  webStatefulSetYaml,
} from "./manifests.ts";

/** The one object `yaml` describes, as `cluster.apply` would read it. */
function only(yaml: string): Record<string, unknown> {
  const manifests = parseManifests(yaml);
  assert.equal(manifests.length, 1, yaml);
  return manifests[0]?.object as Record<string, unknown>;
}

describe("test manifests", () => {
  it("spell a StorageClass with only the fields a test names", () => {
    assert.deepEqual(only(storageClassYaml()), {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "standard" },
      provisioner: "kvol.io/sim-disk",
      volumeBindingMode: "WaitForFirstConsumer",
    });
    const zonal = only(
      storageClassYaml({
        name: "zonal",
        bindingMode: "Immediate",
        reclaimPolicy: "Retain",
        parameters: { type: "ssd", fsType: "ext4" },
      }),
    );
    assert.deepEqual(zonal.parameters, { type: "ssd", fsType: "ext4" });
    assert.equal(zonal.reclaimPolicy, "Retain");
    assert.equal(zonal.volumeBindingMode, "Immediate");
  });

  it("spell a claim and pods that mount it", () => {
    assert.deepEqual(only(claimYaml("data", { storageClassName: "manual", storage: "2Gi" })).spec, {
      accessModes: ["ReadWriteOnce"],
      storageClassName: "manual",
      resources: { requests: { storage: "2Gi" } },
    });
    assert.deepEqual(
      only(podUsingClaimYaml("app", "data")),
      only(podYaml("app", "persistentVolumeClaim: { claimName: data }")),
    );
    const spec = only(podUsingClaimYaml("app", "data")).spec as { volumes: unknown[] };
    assert.deepEqual(spec.volumes, [{ name: "data", persistentVolumeClaim: { claimName: "data" } }]);
  });

  it("spell the web StatefulSet and Deployment with their replicas, image, strategy and claim", () => {
    const statefulSet = only(webStatefulSetYaml({ replicas: 2, storageClassName: "zonal" })) as {
      spec: { replicas: number; volumeClaimTemplates: Array<{ spec: { storageClassName: string } }> };
    };
    assert.equal(statefulSet.spec.replicas, 2);
    assert.equal(statefulSet.spec.volumeClaimTemplates[0]?.spec.storageClassName, "zonal");

    const deployment = only(
      webDeploymentYaml({ image: "nginx:1.26", replicas: 3, strategy: "Recreate", claimName: "data" }),
    ) as {
      spec: {
        replicas: number;
        strategy: unknown;
        template: { spec: { containers: Array<{ image: string; volumeMounts: unknown }>; volumes: unknown } };
      };
    };
    assert.equal(deployment.spec.replicas, 3);
    assert.deepEqual(deployment.spec.strategy, { type: "Recreate" });
    assert.equal(deployment.spec.template.spec.containers[0]?.image, "nginx:1.26");
    assert.deepEqual(deployment.spec.template.spec.containers[0]?.volumeMounts, [{ name: "data", mountPath: "/data" }]);
    assert.deepEqual(deployment.spec.template.spec.volumes, [
      { name: "data", persistentVolumeClaim: { claimName: "data" } },
    ]);
    const plain = only(webDeploymentYaml()) as typeof deployment;
    assert.equal(plain.spec.strategy, undefined);
    assert.equal(plain.spec.template.spec.volumes, undefined);
  });
});
