import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, problemsOf } from "./testing/test-support.ts";

type Manifest = {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & {
    template: { metadata: Record<string, unknown>; spec: Record<string, unknown> & { volumes: unknown[] } };
  };
};

const deployment: Manifest = {
  metadata: { name: "user-db", namespace: "sock-shop" },
  spec: {
    replicas: 1,
    selector: { matchLabels: { name: "user-db" } },
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: "25%" } },
    template: {
      metadata: { labels: { name: "user-db" } },
      spec: {
        containers: [
          {
            name: "user-db",
            image: "weaveworksdemos/user-db:0.3.0",
            volumeMounts: [{ name: "data-volume", mountPath: "/data/db-users" }],
          },
        ],
        volumes: [{ name: "data-volume", persistentVolumeClaim: { claimName: "user-pvc" } }],
      },
    },
  },
};

describe("Deployment", () => {
  it("accepts the seed 004 database deployment", () => {
    assert.deepEqual(problemsOf("Deployment", deployment), []);
  });

  it("refuses a rolling update that can never progress", () => {
    const stuck = changed(deployment, (copy) => {
      copy.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 0, maxUnavailable: "0%" } };
    });
    assert.deepEqual(problemsOf("Deployment", stuck), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0',
    ]);
  });

  it("checks int-or-percent values", () => {
    const odd = changed(deployment, (copy) => {
      copy.spec.strategy = { rollingUpdate: { maxSurge: "one", maxUnavailable: "150%" } };
    });
    assert.deepEqual(problemsOf("Deployment", odd), [
      "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"one\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
    ]);
  });

  it("refuses rollingUpdate settings with the Recreate strategy and unknown strategies", () => {
    const recreate = changed(deployment, (copy) => {
      (copy.spec.strategy as Record<string, unknown>).type = "Recreate";
    });
    assert.deepEqual(problemsOf("Deployment", recreate), [
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]);
    const unknown = changed(deployment, (copy) => {
      copy.spec.strategy = { type: "BlueGreen" };
    });
    assert.deepEqual(problemsOf("Deployment", unknown), [
      'spec.strategy.type: Unsupported value: "BlueGreen": supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  it("checks the pod template's volumes", () => {
    const noClaim = changed(deployment, (copy) => {
      copy.spec.template.spec.volumes = [{ name: "data-volume", persistentVolumeClaim: {} }];
    });
    assert.deepEqual(problemsOf("Deployment", noClaim), [
      "spec.template.spec.volumes[0].persistentVolumeClaim.claimName: Required value",
      'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "data-volume"',
    ]);
  });

  it("requires the progress deadline to exceed minReadySeconds", () => {
    const tight = changed(deployment, (copy) => {
      copy.spec.minReadySeconds = 30;
      copy.spec.progressDeadlineSeconds = 30;
    });
    assert.deepEqual(problemsOf("Deployment", tight), [
      "spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds",
    ]);
  });

  it("allows changing the template on update", () => {
    const updated = changed(deployment, (copy) => {
      copy.spec.replicas = 2;
    });
    assert.deepEqual(problemsOf("Deployment", updated, deployment), []);
  });
});

describe("ReplicaSet", () => {
  const replicaSet = {
    metadata: { name: "user-db-79f7876cbc", namespace: "sock-shop" },
    spec: { replicas: 1, selector: deployment.spec.selector, template: deployment.spec.template },
  };

  it("accepts a ReplicaSet made from the deployment", () => {
    assert.deepEqual(problemsOf("ReplicaSet", replicaSet), []);
  });

  it("words an empty selector as Kubernetes does", () => {
    const empty = changed(replicaSet, (copy) => {
      copy.spec.selector = { matchLabels: {} };
    });
    assert.deepEqual(problemsOf("ReplicaSet", empty), [
      'spec.selector: Invalid value: {"matchLabels":{}}: empty selector is invalid for deployment',
    ]);
  });

  it("refuses an active deadline in the template", () => {
    const deadline = changed(replicaSet, (copy) => {
      copy.spec.template = { ...copy.spec.template, spec: { ...copy.spec.template.spec, activeDeadlineSeconds: 60 } };
    });
    assert.deepEqual(problemsOf("ReplicaSet", deadline), [
      "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported",
    ]);
  });
});
