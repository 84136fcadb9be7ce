import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../errors.ts";
import type { KObject } from "../objects.ts";
import { schemaForKind } from "../schema/schema.ts";
import { serverSideApply } from "./apply.ts";
import { recordUpdate } from "./record-update.ts";

const schema = schemaForKind("apps/v1", "Deployment");
const scope = { hasStatus: true };
const t1 = "2026-01-01T00:00:00Z";
const t2 = "2026-01-01T00:05:00Z";

function deployment(
  replicas: number,
  labels: Record<string, string> = { app: "web" },
  images = ["nginx:1.25"],
): KObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default", labels },
    spec: {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          containers: images.map((image, index) => ({
            name: index === 0 ? "nginx" : `c${index}`,
            image,
            ...(index === 0 ? { ports: [{ containerPort: 80 }] } : {}),
          })),
        },
      },
    },
  };
}

function apply(live: KObject | undefined, config: KObject, manager = "kubectl", options = { force: false, now: t1 }) {
  return serverSideApply({
    live,
    config,
    manager,
    force: options.force,
    schema,
    apiVersion: "apps/v1",
    scope,
    now: options.now,
  });
}

function spec(object: KObject): Record<string, unknown> {
  return object.spec as Record<string, unknown>;
}

describe("server-side apply", () => {
  it("creates the object with one Apply entry in Kubernetes' FieldsV1 shape", () => {
    const created = apply(undefined, deployment(2));
    assert.equal(spec(created).replicas, 2);
    const entries = created.metadata?.managedFields ?? [];
    assert.equal(entries.length, 1);
    const [entry] = entries;
    assert.equal(entry?.manager, "kubectl");
    assert.equal(entry?.operation, "Apply");
    assert.equal(entry?.apiVersion, "apps/v1");
    assert.equal(entry?.time, t1);
    assert.equal(entry?.fieldsType, "FieldsV1");
    assert.deepEqual(entry?.fieldsV1, {
      "f:metadata": { "f:labels": { "f:app": {} } },
      "f:spec": {
        "f:replicas": {},
        "f:selector": {},
        "f:template": {
          "f:metadata": { "f:labels": { "f:app": {} } },
          "f:spec": {
            "f:containers": {
              'k:{"name":"nginx"}': {
                ".": {},
                "f:image": {},
                "f:name": {},
                "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } },
              },
            },
          },
        },
      },
    });
  });

  it("re-applying the same configuration changes nothing, not even the entry's time", () => {
    const created = apply(undefined, deployment(2));
    const again = apply(created, deployment(2), "kubectl", { force: false, now: t2 });
    assert.deepEqual(again, created);
  });

  it("a port stored with its defaulted protocol is the same element as the applied port without one", () => {
    const created = apply(undefined, deployment(2));
    const containers = (spec(created).template as { spec: { containers: { ports: unknown[] }[] } }).spec.containers;
    const stored = { ...created, spec: { ...spec(created) } } as KObject;
    containers[0] = { ...containers[0], ports: [{ containerPort: 80, protocol: "TCP" }] } as { ports: unknown[] };
    const again = apply(stored, deployment(2));
    const ports = (spec(again).template as { spec: { containers: { ports: unknown[] }[] } }).spec.containers[0]?.ports;
    assert.equal(ports?.length, 1);
  });

  it("changing a field another manager set is a 409 naming the manager and the field", () => {
    const byCsa = recordUpdate({
      live: undefined,
      next: deployment(2),
      manager: "kubectl-client-side-apply",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t1,
    });
    assert.throws(
      () => apply(byCsa, deployment(3)),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 409 &&
        error.message ===
          `Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1 at ${t1}: .spec.replicas` &&
        error.details.causes?.[0]?.field === ".spec.replicas",
    );
  });

  it("applying the value already set is no conflict: both managers own it", () => {
    const byCsa = recordUpdate({
      live: undefined,
      next: deployment(2),
      manager: "kubectl-client-side-apply",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t1,
    });
    const applied = apply(byCsa, deployment(2));
    const managers = (applied.metadata?.managedFields ?? []).map((entry) => `${entry.manager}/${entry.operation}`);
    assert.deepEqual(managers, ["kubectl/Apply", "kubectl-client-side-apply/Update"]);
  });

  it("force takes the field over from the other manager", () => {
    const byCsa = recordUpdate({
      live: undefined,
      next: deployment(2),
      manager: "kubectl-client-side-apply",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t1,
    });
    const forced = apply(byCsa, deployment(3), "kubectl", { force: true, now: t2 });
    assert.equal(spec(forced).replicas, 3);
    const csa = forced.metadata?.managedFields?.find((entry) => entry.manager === "kubectl-client-side-apply");
    const csaSpec = (csa?.fieldsV1 as Record<string, Record<string, unknown>> | undefined)?.["f:spec"];
    assert.equal(csaSpec?.["f:replicas"], undefined);
    assert.ok(csaSpec?.["f:template"], "the other manager keeps what was not in conflict");
  });

  it("a field the manager applied before and omits now is removed", () => {
    const created = apply(undefined, deployment(2, { app: "web", tier: "front" }, ["nginx", "sidecar"]));
    const reapplied = apply(created, deployment(2, { app: "web" }, ["nginx"]), "kubectl", { force: false, now: t2 });
    assert.deepEqual(reapplied.metadata?.labels, { app: "web" });
    const names = (spec(reapplied).template as { spec: { containers: { name: string }[] } }).spec.containers.map(
      (container) => container.name,
    );
    assert.deepEqual(names, ["nginx"]);
  });

  it("an omitted field another manager also owns stays", () => {
    const created = apply(undefined, deployment(2, { app: "web", tier: "front" }));
    const labelled = recordUpdate({
      live: created,
      next: { ...created, metadata: { ...created.metadata, labels: { app: "web", tier: "front", team: "a" } } },
      manager: "kubectl-label",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t1,
    });
    // kubectl-label added `team`; `tier` is the applier's alone, so it goes.
    const reapplied = apply(labelled, deployment(2, { app: "web" }), "kubectl", { force: false, now: t2 });
    assert.deepEqual(reapplied.metadata?.labels, { app: "web", team: "a" });
  });

  it("the first apply to an object written without managed fields conflicts with what is there", () => {
    const legacy = deployment(2);
    assert.throws(() => apply(legacy, deployment(5)), /conflict with "before-first-apply"/);
  });

  it("refuses an applied configuration that carries managedFields", () => {
    const config = { ...deployment(1), metadata: { name: "web", managedFields: [] } };
    assert.throws(
      () => apply(undefined, config),
      (error: unknown) => error instanceof ApiError && error.code === 400,
    );
  });
});

describe("managed fields of updates", () => {
  it("records the added subtree with its own member marks and moves changed fields to the writer", () => {
    const created = recordUpdate({
      live: undefined,
      next: deployment(2),
      manager: "kubectl-create",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t1,
    });
    const fields = created.metadata?.managedFields?.[0]?.fieldsV1 as Record<string, Record<string, unknown>>;
    assert.deepEqual(fields["f:metadata"], { "f:labels": { ".": {}, "f:app": {} } });
    const scaled = recordUpdate({
      live: created,
      next: { ...created, spec: { ...spec(created), replicas: 4 } },
      manager: "kubectl-scale",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t2,
    });
    const byManager = new Map((scaled.metadata?.managedFields ?? []).map((entry) => [entry.manager, entry]));
    assert.deepEqual(byManager.get("kubectl-scale")?.fieldsV1, { "f:spec": { "f:replicas": {} } });
    const createFields = byManager.get("kubectl-create")?.fieldsV1 as
      | Record<string, Record<string, unknown>>
      | undefined;
    const createSpec = createFields?.["f:spec"];
    assert.equal(createSpec?.["f:replicas"], undefined);
  });

  it("a write that changes nothing keeps every entry as it was", () => {
    const created = recordUpdate({
      live: undefined,
      next: deployment(2),
      manager: "m",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t1,
    });
    const again = recordUpdate({
      live: created,
      next: created,
      manager: "m",
      schema,
      apiVersion: "apps/v1",
      scope,
      now: t2,
    });
    assert.deepEqual(again.metadata?.managedFields, created.metadata?.managedFields);
  });
});
