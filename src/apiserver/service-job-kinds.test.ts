import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startTestServer, type TestServer } from "./test-server.ts";

const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

type Json = Record<string, unknown>;

function jobManifest(name: string, restartPolicy?: string): Json {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      template: {
        spec: {
          ...(restartPolicy === undefined ? {} : { restartPolicy }),
          containers: [{ name: "backup", image: "busybox", command: ["echo", "done"] }],
        },
      },
    },
  };
}

async function tableCells(t: TestServer, path: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const response = await fetch(`${t.server.url}${path}`, { headers: { Accept: tableAccept } });
  const body = (await response.json()) as { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
  return { columns: body.columnDefinitions.map((c) => c.name), rows: body.rows.map((r) => r.cells) };
}

describe("Services, Endpoints, ServiceAccounts, Jobs and ControllerRevisions as stored kinds", () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(() => t.close());

  it("gives a new Service a cluster IP from 10.96.0.0/12 and Kubernetes' defaults", async () => {
    const created = await t.call("POST", "/api/v1/namespaces/default/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "db" },
      spec: { selector: { app: "db" }, ports: [{ port: 5432 }] },
    });
    assert.equal(created.status, 201);
    const spec = created.body.spec as Json;
    assert.match(String(spec.clusterIP), /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.equal(spec.type, "ClusterIP");
    assert.equal(spec.sessionAffinity, "None");
    assert.deepEqual(spec.ports, [{ port: 5432, protocol: "TCP", targetPort: 5432 }]);
    const { columns, rows } = await tableCells(t, "/api/v1/namespaces/default/services");
    assert.deepEqual(columns, ["Name", "Type", "Cluster-IP", "External-IP", "Port(s)", "Age", "Selector"]);
    assert.deepEqual(rows[0]?.slice(0, 5), ["db", "ClusterIP", spec.clusterIP, "<none>", "5432/TCP"]);
  });

  it("refuses a Service port out of range and a Service without ports, naming the field", async () => {
    const bad = await t.call("POST", "/api/v1/namespaces/default/services", {
      metadata: { name: "bad" },
      spec: { ports: [{ port: 70000 }] },
    });
    assert.equal(bad.status, 422);
    assert.match(
      String(bad.body.message),
      /spec\.ports\[0\]\.port: Invalid value: 70000: must be between 1 and 65535, inclusive/,
    );
    const none = await t.call("POST", "/api/v1/namespaces/default/services", { metadata: { name: "none" }, spec: {} });
    assert.equal(none.status, 422);
    assert.match(String(none.body.message), /spec\.ports: Required value/);
  });

  it("prints Endpoints addresses and a ServiceAccount's secret count", async () => {
    await t.call("POST", "/api/v1/namespaces/default/endpoints", {
      metadata: { name: "db" },
      subsets: [{ addresses: [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }], ports: [{ port: 5432, protocol: "TCP" }] }],
    });
    const endpoints = await tableCells(t, "/api/v1/namespaces/default/endpoints");
    assert.deepEqual(endpoints.rows[0]?.slice(0, 2), ["db", "10.0.0.1:5432,10.0.0.2:5432"]);
    const badIp = await t.call("POST", "/api/v1/namespaces/default/endpoints", {
      metadata: { name: "x" },
      subsets: [{ addresses: [{ ip: "not-an-ip" }], ports: [{ port: 1, protocol: "TCP" }] }],
    });
    assert.equal(badIp.status, 422);
    assert.match(String(badIp.body.message), /subsets\[0\]\.addresses\[0\]\.ip: Invalid value: "not-an-ip"/);
    await t.call("POST", "/api/v1/namespaces/default/serviceaccounts", { metadata: { name: "backup" } });
    const accounts = await tableCells(t, "/api/v1/namespaces/default/serviceaccounts");
    assert.deepEqual(accounts.columns, ["Name", "Secrets", "Age"]);
    assert.deepEqual(accounts.rows[0]?.slice(0, 2), ["backup", 0]);
  });

  it("generates a Job's selector and pod labels from its uid and fills its defaults", async () => {
    const created = await t.call("POST", "/apis/batch/v1/namespaces/default/jobs", jobManifest("backup", "Never"));
    assert.equal(created.status, 201);
    const uid = (created.body.metadata as Json).uid as string;
    const spec = created.body.spec as Json & { template: { metadata: { labels: Json } } };
    assert.deepEqual(spec.selector, { matchLabels: { "batch.kubernetes.io/controller-uid": uid } });
    assert.equal(spec.template.metadata.labels["batch.kubernetes.io/job-name"], "backup");
    assert.equal(spec.template.metadata.labels["job-name"], "backup");
    assert.equal(spec.completions, 1);
    assert.equal(spec.parallelism, 1);
    assert.equal(spec.backoffLimit, 6);
    const { columns, rows } = await tableCells(t, "/apis/batch/v1/namespaces/default/jobs");
    assert.deepEqual(columns.slice(0, 5), ["Name", "Status", "Completions", "Duration", "Age"]);
    assert.deepEqual(rows[0]?.slice(0, 4), ["backup", "Running", "0/1", ""]);
  });

  it("refuses a Job whose pods would restart forever, as Kubernetes does", async () => {
    const refused = await t.call("POST", "/apis/batch/v1/namespaces/default/jobs", jobManifest("loop"));
    assert.equal(refused.status, 422);
    assert.match(
      String(refused.body.message),
      /spec\.template\.spec\.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"/,
    );
  });

  it("refuses a change to a Job's template", async () => {
    const created = await t.call("POST", "/apis/batch/v1/namespaces/default/jobs", jobManifest("once", "Never"));
    const changed = structuredClone(created.body) as Json & { spec: { template: { spec: { containers: Json[] } } } };
    (changed.spec.template.spec.containers[0] as Json).image = "alpine";
    const refused = await t.call("PUT", "/apis/batch/v1/namespaces/default/jobs/once", changed);
    assert.equal(refused.status, 422);
    assert.match(String(refused.body.message), /spec\.template: Invalid value: .*: field is immutable/);
  });

  it("requires a ControllerRevision's data and keeps it unchanged", async () => {
    const path = "/apis/apps/v1/namespaces/default/controllerrevisions";
    const missing = await t.call("POST", path, { metadata: { name: "web-1" }, revision: 1 });
    assert.equal(missing.status, 422);
    assert.match(String(missing.body.message), /data: Required value: data is mandatory/);
    const created = await t.call("POST", path, { metadata: { name: "web-1" }, revision: 1, data: { spec: {} } });
    assert.equal(created.status, 201);
    const changed = await t.call("PUT", `${path}/web-1`, { ...created.body, data: { spec: { x: 1 } } });
    assert.equal(changed.status, 422);
    assert.match(String(changed.body.message), /data: Invalid value: .*: field is immutable/);
  });
});
