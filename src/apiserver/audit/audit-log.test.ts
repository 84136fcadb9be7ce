import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, describe, it } from "node:test";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { Metrics } from "../../runtime/metrics.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { type AuthTestServer, adminToken, nobodyToken, startAuthTestServer } from "../auth/auth-test-server.ts";
import { AuditLog, openAuditLog } from "./audit-log.ts";

type Json = Record<string, unknown>;
const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "settings", namespace: "default" } };

describe("audit log", () => {
  let t: AuthTestServer | undefined;
  const dir = mkdtempSync(join(tmpdir(), "kvol-audit-"));
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("records each write, refused ones too, as audit.k8s.io/v1 Events at level Metadata, and no reads", async () => {
    const path = join(dir, "audit.log");
    const audit = new AuditLog(path, new Logger({ clock: new VirtualClock(), sink: new MemorySink() }));
    t = await startAuthTestServer({ audit });
    const created = await t.call("POST", "/api/v1/namespaces/default/configmaps/", adminToken, configMap);
    await t.call("GET", "/api/v1/namespaces/default/configmaps/settings", adminToken);
    await t.call("DELETE", "/api/v1/namespaces/default/configmaps/settings", nobodyToken);
    await audit.flush();
    const events = readFileSync(path, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Json);
    assert.equal(events.length, 2, "a create and a refused delete; the read is not recorded");
    const [create, refused] = events as [Json, Json];
    assert.equal(create.apiVersion, "audit.k8s.io/v1");
    assert.equal(create.kind, "Event");
    assert.equal(create.level, "Metadata");
    assert.equal(create.stage, "ResponseComplete");
    assert.equal(create.verb, "create");
    assert.equal(create.requestURI, "/api/v1/namespaces/default/configmaps/");
    assert.match(String(create.auditID), /^[0-9a-f-]{36}$/);
    assert.deepEqual(create.user, {
      username: "kvol-admin",
      uid: "admin",
      groups: ["system:masters", "system:authenticated"],
    });
    assert.deepEqual(create.objectRef, { resource: "configmaps", namespace: "default", apiVersion: "v1" });
    assert.deepEqual(create.responseStatus, { metadata: {}, code: 201 });
    // The server's clock, not the wall clock: the same second as the object's creationTimestamp.
    const createdAt = String(((created.body.metadata ?? {}) as Json).creationTimestamp).replace("Z", "");
    assert.match(String(create.requestReceivedTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(String(create.stageTimestamp).startsWith(createdAt), `${create.stageTimestamp} vs ${createdAt}`);
    assert.equal(refused.verb, "delete");
    assert.deepEqual(refused.objectRef, {
      resource: "configmaps",
      namespace: "default",
      name: "settings",
      apiVersion: "v1",
    });
    assert.deepEqual(refused.responseStatus, { metadata: {}, code: 403 });
    assert.equal((refused.user as Json).username, "nobody");
  });

  it("serves every write when the file cannot be written, counting and logging the events it drops", async () => {
    const gone = mkdtempSync(join(dir, "gone-"));
    const sink = new MemorySink();
    const metrics = new Metrics();
    const audit = openAuditLog(join(gone, "audit.log"), new Logger({ clock: new VirtualClock(), sink }), metrics);
    rmSync(gone, { recursive: true });
    t = await startAuthTestServer({ audit });
    const answer = await t.call("POST", "/api/v1/namespaces/default/configmaps", adminToken, configMap);
    assert.equal(answer.status, 201);
    await audit.flush();
    assert.match(await metrics.exposition(), /apiserver_audit_error_total\{plugin="log"\} 1/);
    const logged = sink.records.map((record) => record.message);
    assert.ok(logged.includes("audit events dropped: the audit log cannot be written; requests are served as usual"));
  });

  it("refuses to start on a path it cannot write, naming it", () => {
    const logger = new Logger({ clock: new VirtualClock(), sink: new MemorySink() });
    assert.throws(
      () => openAuditLog(join(dir, "no-such-dir", "audit.log"), logger),
      /--audit-log-path .*no-such-dir\/audit\.log: the audit log cannot be written \(ENOENT/,
    );
  });
});
