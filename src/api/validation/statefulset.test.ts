import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { changed, dnsLabelMessage, problemsOf } from "./testing/test-support.ts";

type Template = { metadata: Record<string, unknown>; spec: Record<string, unknown> };
type SetManifest = {
  metadata: Record<string, unknown>;
  spec: Record<string, unknown> & {
    selector: Record<string, unknown>;
    template: {
      metadata: Record<string, unknown>;
      spec: { containers: Record<string, unknown>[] } & Record<string, unknown>;
    };
    volumeClaimTemplates: Template[];
  };
};

/** A three-replica database, each replica with its own claim made from the template. */
const statefulSet: SetManifest = {
  metadata: { name: "web", namespace: "default" },
  spec: {
    serviceName: "web",
    replicas: 3,
    podManagementPolicy: "OrderedReady",
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: "nginx",
            image: "registry.k8s.io/nginx-slim:0.24",
            ports: [{ containerPort: 80, name: "web" }],
            volumeMounts: [{ name: "www", mountPath: "/usr/share/nginx/html" }],
          },
        ],
      },
    },
    volumeClaimTemplates: [
      {
        metadata: { name: "www" },
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: "my-storage-class",
          resources: { requests: { storage: "1Gi" } },
        },
      },
    ],
  },
};

describe("StatefulSet", () => {
  it("accepts a set whose pods mount their claim templates", () => {
    assert.deepEqual(problemsOf("StatefulSet", statefulSet), []);
  });

  it("requires a selector that matches the template", () => {
    const noSelector = changed(statefulSet, (copy) => {
      delete (copy.spec as Record<string, unknown>).selector;
    });
    assert.deepEqual(problemsOf("StatefulSet", noSelector), ["spec.selector: Required value"]);
    const mismatch = changed(statefulSet, (copy) => {
      copy.spec.selector = { matchLabels: { app: "db" } };
    });
    assert.deepEqual(problemsOf("StatefulSet", mismatch), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
    const empty = changed(statefulSet, (copy) => {
      copy.spec.selector = {};
    });
    assert.deepEqual(problemsOf("StatefulSet", empty), [
      "spec.selector: Invalid value: {}: empty selector is invalid for statefulset",
    ]);
  });

  it("checks each claim template as a claim", () => {
    const broken = changed(statefulSet, (copy) => {
      copy.spec.volumeClaimTemplates.push({
        metadata: { name: "logs" },
        spec: { accessModes: ["ReadWriteOnce", "ReadWriteOncePod"], resources: { requests: {} } },
      });
    });
    assert.deepEqual(problemsOf("StatefulSet", broken), [
      "spec.volumeClaimTemplates[1].spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
      "spec.volumeClaimTemplates[1].spec.resources[storage]: Required value",
    ]);
  });

  it("requires claim template names that are unique volume names", () => {
    const twins = changed(statefulSet, (copy) => {
      copy.spec.volumeClaimTemplates.push(structuredClone(statefulSet.spec.volumeClaimTemplates[0] as Template));
      copy.spec.volumeClaimTemplates.push({
        metadata: { name: "Logs" },
        spec: structuredClone(statefulSet.spec.volumeClaimTemplates[0]?.spec ?? {}),
      });
      copy.spec.volumeClaimTemplates.push({
        metadata: {},
        spec: structuredClone(statefulSet.spec.volumeClaimTemplates[0]?.spec ?? {}),
      });
    });
    assert.deepEqual(problemsOf("StatefulSet", twins), [
      'spec.volumeClaimTemplates[1].metadata.name: Duplicate value: "www"',
      `spec.volumeClaimTemplates[2].metadata.name: Invalid value: "Logs": ${dnsLabelMessage}`,
      "spec.volumeClaimTemplates[3].metadata.name: Required value",
    ]);
  });

  it("checks the template's mounts with the pod rules", () => {
    const typo = changed(statefulSet, (copy) => {
      copy.spec.template.spec.containers[0] = {
        ...copy.spec.template.spec.containers[0],
        volumeMounts: [{ name: "wwww", mountPath: "/usr/share/nginx/html" }],
      };
    });
    assert.deepEqual(problemsOf("StatefulSet", typo), [
      'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "wwww"',
    ]);
  });

  it("checks policies, counts and the pod restart policy", () => {
    const odd = changed(statefulSet, (copy) => {
      copy.spec.podManagementPolicy = "Ordered";
      copy.spec.replicas = -1;
      copy.spec.template.spec.restartPolicy = "Never";
      copy.spec.updateStrategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } };
    });
    assert.deepEqual(problemsOf("StatefulSet", odd), [
      "spec.podManagementPolicy: Invalid value: \"Ordered\": must be 'OrderedReady' or 'Parallel'",
      "spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0",
      "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
  });

  it("takes a DNS-label name, since its pods are named after it", () => {
    const dotted = changed(statefulSet, (copy) => {
      copy.metadata.name = "web.v1";
    });
    assert.deepEqual(problemsOf("StatefulSet", dotted), [
      'metadata.name: Invalid value: "web.v1": must not contain dots',
    ]);
  });
});

describe("StatefulSet updates", () => {
  const forbidden =
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

  it("allows scaling and a new template", () => {
    const scaled = changed(statefulSet, (copy) => {
      copy.spec.replicas = 5;
      copy.spec.template.spec.containers[0] = { ...copy.spec.template.spec.containers[0], image: "nginx:1.27" };
    });
    assert.deepEqual(problemsOf("StatefulSet", scaled, statefulSet), []);
  });

  it("refuses a change of claim templates, even to grow them", () => {
    const bigger = changed(statefulSet, (copy) => {
      copy.spec.volumeClaimTemplates[0] = {
        metadata: { name: "www" },
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: "my-storage-class",
          resources: { requests: { storage: "2Gi" } },
        },
      };
    });
    assert.deepEqual(problemsOf("StatefulSet", bigger, statefulSet), [forbidden]);
  });

  it("treats filled-in defaults as no change", () => {
    const defaulted = changed(statefulSet, (copy) => {
      const claimTemplate = copy.spec.volumeClaimTemplates[0];
      if (claimTemplate !== undefined) claimTemplate.spec.volumeMode = "Filesystem";
    });
    const withoutPolicy = changed(statefulSet, (copy) => {
      delete copy.spec.podManagementPolicy;
    });
    assert.deepEqual(problemsOf("StatefulSet", defaulted, withoutPolicy), []);
  });
});
