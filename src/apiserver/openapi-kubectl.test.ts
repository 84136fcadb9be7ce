/**
 * A real kubectl against the server: discovery (aggregated), `explain` from the OpenAPI v3
 * documents, and client-side apply finding the write parameters there. Skips with a printed
 * reason when no kubectl is on the PATH.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { suiteSkip } from "../testing/requirements.ts";
import { startTestServer, type TestServer } from "./test-server.ts";

const run = promisify(execFile);

function findKubectl(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" });
  const path = found.stdout.trim();
  return found.status === 0 && path !== "" ? path : undefined;
}

const kubectl = findKubectl();
const skipReason = suiteSkip(
  "kubectl against the server",
  kubectl === undefined ? "no kubectl on the PATH" : undefined,
);

function kubeconfig(serverUrl: string): string {
  return [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [{name: kvol, cluster: {server: '${serverUrl}'}}]`,
    "users: [{name: kvol, user: {}}]",
    "contexts: [{name: kvol, context: {cluster: kvol, user: kvol}}]",
    "current-context: kvol",
    "",
  ].join("\n");
}

/** Escapes the brackets of `[]string` and `map[string]string` for a RegExp. */
function quote(text: string): string {
  return text.replace(/[[\]]/g, "\\$&");
}

/** The line naming the explained field: `FIELD: x <Type>` from v3, `RESOURCE: x <Object>` from v2. */
function explainedAs(field: string, v3Type: string, v2Type: string): RegExp {
  return new RegExp(`^(FIELD: ${field} <${quote(v3Type)}>|RESOURCE: ${field} <${quote(v2Type)}>)$`, "m");
}

/** One entry of the FIELDS list, as kubectl prints it from v3 (its type's name) or v2 (`Object`). */
function fieldLine(field: string, v3Type: string, v2Type: string, required = false): RegExp {
  const marker = required ? " -required-" : "";
  return new RegExp(`^ +${field}\t<(${quote(v3Type)}|${quote(v2Type)})>${marker}$`, "m");
}

interface LoggedRequest {
  verb: string;
  url: string;
  status: string;
}

/** The requests kubectl logs at -v=6, in its plain (`GET url 200 OK`) or structured (1.32+) form. */
function requestsLogged(stderr: string): LoggedRequest[] {
  const found: LoggedRequest[] = [];
  for (const line of stderr.split("\n")) {
    const structured = /verb="(\w+)" url="([^"]+)" status="(\d{3})/.exec(line);
    const plain = /\] (GET|POST|PUT|PATCH|DELETE) (\S+) (\d{3}) /.exec(line);
    const match = structured ?? plain;
    if (match !== null) found.push({ verb: match[1] ?? "", url: match[2] ?? "", status: match[3] ?? "" });
  }
  return found;
}

const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`;

describe("kubectl against the server", { skip: skipReason }, () => {
  let t: TestServer;
  let dir: string;

  async function kubectlRun(...args: string[]): Promise<{ stdout: string; stderr: string }> {
    const options = ["--kubeconfig", join(dir, "kubeconfig"), "--cache-dir", join(dir, "cache")];
    return run(kubectl ?? "kubectl", [...options, ...args], { encoding: "utf8" });
  }

  before(async () => {
    t = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), "kvol-kubectl-"));
    writeFileSync(join(dir, "kubeconfig"), kubeconfig(t.server.url));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the served resources with kubectl api-resources", async () => {
    const { stdout } = await kubectlRun("api-resources");
    const rows = stdout.split("\n").map((line) => line.trim().split(/\s+/));
    assert.deepEqual(rows[0], ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]);
    const row = (name: string) => rows.find((cells) => cells[0] === name);
    assert.deepEqual(row("persistentvolumeclaims"), [
      "persistentvolumeclaims",
      "pvc",
      "v1",
      "true",
      "PersistentVolumeClaim",
    ]);
    assert.deepEqual(row("storageclasses"), ["storageclasses", "sc", "storage.k8s.io/v1", "false", "StorageClass"]);
    assert.deepEqual(row("volumeattachments"), ["volumeattachments", "storage.k8s.io/v1", "false", "VolumeAttachment"]);
    assert.deepEqual(row("csistoragecapacities"), [
      "csistoragecapacities",
      "storage.k8s.io/v1",
      "true",
      "CSIStorageCapacity",
    ]);
    assert.deepEqual(row("volumesnapshots"), [
      "volumesnapshots",
      "vs",
      "snapshot.storage.k8s.io/v1",
      "true",
      "VolumeSnapshot",
    ]);
    assert.deepEqual(row("volumesnapshotcontents"), [
      "volumesnapshotcontents",
      "vsc,vscs",
      "snapshot.storage.k8s.io/v1",
      "false",
      "VolumeSnapshotContent",
    ]);
    assert.equal(
      rows.filter((cells) => cells.length > 1).length,
      34,
      "a header, the 29 served kinds and the 4 reviews",
    );
  });

  it("explains pod.spec.volumes field by field", async () => {
    const { stdout } = await kubectlRun("explain", "pod.spec.volumes");
    assert.match(stdout, /^KIND:\s+Pod$/m);
    assert.match(stdout, /^VERSION:\s+v1$/m);
    assert.match(stdout, explainedAs("volumes", "[]Volume", "[]Object"));
    assert.match(stdout, /List of volumes that can be mounted by containers belonging to the pod/);
    assert.match(stdout, fieldLine("name", "string", "string", true));
    assert.match(stdout, fieldLine("persistentVolumeClaim", "PersistentVolumeClaimVolumeSource", "Object"));
    assert.match(stdout, fieldLine("csi", "CSIVolumeSource", "Object"));
  });

  it("explains pvc.spec", async () => {
    const { stdout } = await kubectlRun("explain", "pvc.spec");
    assert.match(stdout, /^KIND:\s+PersistentVolumeClaim$/m);
    assert.match(stdout, explainedAs("spec", "PersistentVolumeClaimSpec", "Object"));
    assert.match(stdout, fieldLine("accessModes", "[]string", "[]string"));
    assert.match(stdout, fieldLine("storageClassName", "string", "string"));
    assert.match(stdout, fieldLine("resources", "VolumeResourceRequirements", "Object"));
  });

  it("explains from the protobuf OpenAPI v2 document too", async () => {
    const v2 = await kubectlRun("explain", "pvc.spec.resources", "--output=plaintext-openapiv2").catch(
      // kubectl before 1.27 has no such flag: its plain explain already reads the v2 document.
      (error: { stderr?: string }) => {
        if (!/unknown flag/.test(error.stderr ?? "")) throw error;
        return kubectlRun("explain", "pvc.spec.resources");
      },
    );
    assert.match(v2.stdout, /^KIND:\s+PersistentVolumeClaim$/m);
    assert.match(v2.stdout, /^RESOURCE: resources <Object>$/m);
    assert.match(v2.stdout, /^ {3}requests\t<map\[string\]string>$/m);
  });

  it("validates a manifest through the OpenAPI documents when applying it", async () => {
    writeFileSync(join(dir, "claim.yaml"), claim);
    const { stdout, stderr } = await kubectlRun("apply", "-f", join(dir, "claim.yaml"), "-v=6");
    assert.match(stdout, /persistentvolumeclaim\/data created/);
    const requests = requestsLogged(stderr);
    const sent = (verb: string, url: RegExp, status: string) =>
      requests.some((r) => r.verb === verb && url.test(r.url) && r.status === status);
    if (sent("GET", /\/openapi\/v3/, "200")) {
      // Current kubectl validates on the server once it finds `fieldValidation` on the kind's PATCH.
      assert.ok(sent("POST", /\/persistentvolumeclaims\?.*fieldValidation=Strict/, "201"), stderr);
    } else {
      // kubectl before 1.27 validates on the client, against the protobuf v2 document.
      assert.ok(sent("GET", /\/openapi\/v2/, "200"), stderr);
    }
    assert.doesNotMatch(stderr, /falling back|failed to download openapi/);
  });
});
