/**
 * RBAC with the real kubectl against `kvol up`: `kubectl create clusterrolebinding/role/rolebinding/
 * clusterrole`, a user bound to `view` who may read everywhere but write nowhere, a user whose
 * Role holds them to one namespace, `kubectl auth can-i … --as` and `--list`, every refusal in
 * Kubernetes' words, and the audit log naming who wrote what. Two users are added to the token
 * file while the cluster runs (it is read again on an unknown token). About 20 s; runs with
 * KVOL_E2E=1 or under CI=true, where a missing kubectl fails it.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { suiteSkip } from "../testing/requirements.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { type CommandRun, runCommand } from "./testing/run-command.ts";

const startTimeoutMs = 60_000;
const janeToken = "jane-token-0123456789abcdef";
const bobToken = "bob-token-0123456789abcdef";

const underCi = process.env.CI === "true";
const kubectlFound = spawnSync("sh", ["-c", "command -v kubectl"]).status === 0;

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1") return "starts kvol up and runs kubectl; set KVOL_E2E=1 to run it";
  if (!kubectlFound && !underCi) return "no kubectl on the PATH (install kubernetes-client)";
  return undefined;
}

describe("RBAC with kubectl against kvol up", { skip: suiteSkip("RBAC with kubectl", skipReasonOf()) }, () => {
  let dir: string;
  let kvol: KvolProcess;
  let kubeconfig: string;

  const kubectl = (args: readonly string[], token?: string): Promise<CommandRun> =>
    runCommand(
      "kubectl",
      token === undefined ? args : ["--token", token, ...args],
      { ...process.env, KUBECONFIG: kubeconfig },
      60_000,
    );
  const succeeds = async (args: readonly string[], token?: string): Promise<string> => {
    const run = await kubectl(args, token);
    assert.equal(run.status, 0, `kubectl ${args.join(" ")} failed:\n${run.stderr}`);
    return run.stdout;
  };
  const refused = async (args: readonly string[], token?: string): Promise<string> => {
    const run = await kubectl(args, token);
    assert.notEqual(run.status, 0, `kubectl ${args.join(" ")} should have been refused:\n${run.stdout}`);
    return run.stderr.trim();
  };

  before(async () => {
    assert.ok(kubectlFound, "CI=true requires kubectl on the PATH for the end-to-end test");
    dir = mkdtempSync(join(tmpdir(), "kvol-rbac-e2e-"));
    const args = ["up", "--port", "0", "--nodes", "1", "--data-dir", join(dir, "data")];
    kvol = new KvolProcess([...args, "--audit-log-path", join(dir, "audit.log")]);
    kubeconfig = (await startedCluster(kvol, startTimeoutMs)).kubeconfigPath;
    appendFileSync(join(dirname(kubeconfig), "tokens.csv"), `${janeToken},jane,jane\n${bobToken},bob,bob\n`);
  });

  after(async () => {
    await kvol?.stop("SIGINT");
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("lets a view user read but not write, and a Role hold a user to one namespace", async () => {
    assert.equal(await succeeds(["create", "namespace", "team-a"]), "namespace/team-a created\n");
    assert.equal(
      await succeeds(["create", "clusterrolebinding", "jane-view", "--clusterrole=view", "--user=jane"]),
      "clusterrolebinding.rbac.authorization.k8s.io/jane-view created\n",
    );
    const role = [
      "create",
      "role",
      "cm-editor",
      "--verb=get,list,create,delete",
      "--resource=configmaps",
      "-n",
      "team-a",
    ];
    assert.equal(await succeeds(role), "role.rbac.authorization.k8s.io/cm-editor created\n");
    assert.equal(
      await succeeds(["create", "rolebinding", "bob-cm", "--role=cm-editor", "--user=bob", "-n", "team-a"]),
      "rolebinding.rbac.authorization.k8s.io/bob-cm created\n",
    );
    assert.equal(
      await succeeds(["create", "clusterrole", "pv-reader", "--verb=get,list", "--resource=persistentvolumes"]),
      "clusterrole.rbac.authorization.k8s.io/pv-reader created\n",
    );

    // bob writes in team-a, and nowhere else.
    await succeeds(["create", "configmap", "settings", "-n", "team-a", "--from-literal=a=b"], bobToken);
    assert.equal(
      await refused(["get", "configmaps", "-n", "default"], bobToken),
      'Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    // jane reads everywhere, writes nothing.
    assert.match(await succeeds(["get", "configmaps", "-n", "team-a"], janeToken), /^settings\s+1\s/m);
    assert.equal(
      await refused(["delete", "configmap", "settings", "-n", "team-a"], janeToken),
      'Error from server (Forbidden): configmaps "settings" is forbidden: User "jane" cannot delete resource "configmaps" in API group "" in the namespace "team-a"',
    );
    assert.match(
      await succeeds(["get", "rolebindings", "-n", "team-a", "-o", "wide"]),
      /^bob-cm\s+Role\/cm-editor\s+\S+\s+bob\s*$/m,
    );
  });

  it("answers kubectl auth can-i as the user named with --as", async () => {
    assert.equal(await succeeds(["auth", "can-i", "create", "configmaps", "-n", "team-a", "--as", "bob"]), "yes\n");
    const no = await kubectl(["auth", "can-i", "create", "configmaps", "-n", "default", "--as", "bob"]);
    assert.deepEqual([no.status, no.stdout], [1, "no\n"]);
    const jane = await kubectl(["auth", "can-i", "delete", "pods", "-n", "team-a", "--as", "jane"]);
    assert.equal(jane.stdout, "no\n");
    assert.match(
      await succeeds(["auth", "can-i", "--list", "-n", "team-a", "--as", "bob"]),
      /^configmaps\s+\[\]\s+\[\]\s+\[get list create delete\]/m,
    );
    assert.equal(
      await refused(["auth", "can-i", "get", "pods", "--as", "jane"], bobToken),
      'Error from server (Forbidden): users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  it("writes who wrote what to the audit log", async () => {
    const events = readFileSync(join(dir, "audit.log"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const byBob = events.find(
      (event) => (event.user as { username?: string }).username === "bob" && event.verb === "create",
    );
    assert.deepEqual(byBob?.objectRef, { resource: "configmaps", namespace: "team-a", apiVersion: "v1" });
    assert.deepEqual(byBob?.responseStatus, { metadata: {}, code: 201 });
    const refusal = events.find(
      (event) => (event.user as { username?: string }).username === "jane" && event.verb === "delete",
    );
    assert.deepEqual(refusal?.responseStatus, { metadata: {}, code: 403 });
  });
});
