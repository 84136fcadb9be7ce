/**
 * `kvol why` through the real CLI on a live `kvol up`: a pod whose secret does not exist waits in
 * ContainerCreating, and `kvol why pod/app` (a separate process, reading the cluster over HTTPS
 * with the kubeconfig `kvol up` wrote) names the missing secret, the kubelet's backoff and what to
 * do; `-o json` says the same. With `--max-volumes-per-node 1`, a second pod with a claim of the
 * default class stays Pending, and `kvol why` names the full node, 1 of 1, and what to do. Then
 * three claims: one waiting for its first consumer, one no PersistentVolume matches, and a deleted
 * claim that pvc-protection keeps for the pod using it.
 * Runs with KVOL_E2E=1 or under CI=true.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { suiteSkip } from "../testing/requirements.ts";
import { waitFor } from "./testing/wait-for.ts";
import { LiveCluster, liveClusterSkipReason, liveWaitMs as waitMs } from "./why/testing/live-cluster.ts";

/** A claim of the default class (disk.csi.kvol.io) and a pod using it. */
function podWithClaimYaml(name: string): string {
  return `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: ${name} }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  containers: [{ name: app, image: busybox:1.36, volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: ${name} } }]
`;
}

const waitingClaimsYaml = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: lonely }
spec: { accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: static }
spec: { accessModes: [ReadWriteOnce], storageClassName: "", resources: { requests: { storage: 5Gi } } }
`;

const podYaml = `apiVersion: v1
kind: Pod
metadata: { name: app }
spec:
  containers: [{ name: app, image: busybox:1.36, volumeMounts: [{ name: creds, mountPath: /etc/creds }] }]
  volumes: [{ name: creds, secret: { secretName: db-creds } }]
`;

describe("kvol why on a live kvol up", {
  skip: suiteSkip("kvol why on a live kvol up", liveClusterSkipReason()),
}, () => {
  let cluster: LiveCluster;

  before(async () => {
    cluster = await LiveCluster.start("why-e2e", ["--nodes", "1", "--max-volumes-per-node", "1"]);
  });
  after(async () => {
    await cluster?.stop();
  });

  const kvolCli = (args: readonly string[], input?: string) => cluster.cli(args, input);

  it("names the missing secret, the kubelet's backoff and what to do", async () => {
    const applied = await kvolCli(["apply", "-f", "-"], podYaml);
    assert.equal(applied.status, 0, applied.stderr);
    const text = await waitFor(
      "kvol why to name the missing secret",
      async () => {
        const why = await kvolCli(["why", "pod/app"]);
        assert.equal(why.status, 0, why.stderr);
        return why.stdout.includes("no retries permitted until") ? why.stdout : undefined;
      },
      waitMs,
    );
    assert.match(text, /^pod default\/app: Pending, ContainerCreating on node \S+/);
    assert.ok(text.includes('└─ volume "creds": secret default/db-creds not found'), text);
    assert.ok(text.includes("Create secret db-creds in namespace default"), text);

    const json = await kvolCli(["why", "pod/app", "-o", "json"]);
    assert.equal(json.status, 0, json.stderr);
    const report = JSON.parse(json.stdout) as { object: string; links: { subject: string; state: string }[] };
    assert.equal(report.object, "pod/app");
    assert.deepEqual(
      report.links.map((link) => link.subject),
      ["pod default/app", 'volume "creds"'],
    );

    const missing = await kvolCli(["why", "pod/nothing"]);
    assert.equal(missing.status, 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): pods "nothing" not found\n');
  });

  it("a pod over the node's volume limit: the node, 1 of 1, and what to do", async () => {
    const first = await kvolCli(["apply", "-f", "-"], podWithClaimYaml("first"));
    assert.equal(first.status, 0, first.stderr);
    await waitFor(
      "pod first on a node",
      async () =>
        (await kvolCli(["why", "pod/first"])).stdout.match(/^pod default\/first: \S+.* on node /) ?? undefined,
      waitMs,
    );
    const second = await kvolCli(["apply", "-f", "-"], podWithClaimYaml("second"));
    assert.equal(second.status, 0, second.stderr);
    const text = await waitFor(
      "kvol why to name the full node",
      async () => {
        const why = await kvolCli(["why", "pod/second"]);
        assert.equal(why.status, 0, why.stderr);
        return why.stdout.includes("volume limit reached") ? why.stdout : undefined;
      },
      waitMs,
    );
    assert.ok(
      text.startsWith(
        "pod default/second: Pending, not scheduled: 0/1 nodes are available: 1 node(s) exceed max volume count.",
      ),
      text,
    );
    assert.ok(
      text.includes("node node-1: disk.csi.kvol.io volume limit reached: 1 of 1 in use, the pod needs 1 more"),
      text,
    );
    assert.ok(text.includes("· pod default/first: 1 disk.csi.kvol.io volume(s)"), text);
    assert.ok(text.includes("Free a slot: delete or move a pod that uses disk.csi.kvol.io volumes on node-1"), text);
  });

  it("claims: waiting for a first consumer, no matching PersistentVolume, held by pvc-protection", async () => {
    const applied = await kvolCli(["apply", "-f", "-"], waitingClaimsYaml);
    assert.equal(applied.status, 0, applied.stderr);
    const lonely = await waitFor(
      "kvol why to see the claim waiting for its first consumer",
      async () => {
        const why = await kvolCli(["why", "pvc/lonely"]);
        return why.stdout.includes("event WaitForFirstConsumer") ? why.stdout : undefined;
      },
      waitMs,
    );
    assert.ok(lonely.startsWith("claim default/lonely: Pending: waiting for first consumer"), lonely);
    assert.ok(lonely.includes("create a pod that uses the claim"), lonely);

    const unmatched = (await kvolCli(["why", "pvc/static"])).stdout;
    assert.match(
      unmatched,
      /^claim default\/static: Pending: no PersistentVolume matches it \(static binding: ReadWriteOnce, 5Gi\)/,
    );
    assert.ok(unmatched.includes("Create a PersistentVolume with at least the requested size"), unmatched);

    // pod "first" (the volume-limit case) uses claim "first": deleting the claim leaves it Terminating.
    const deleted = await kvolCli(["delete", "pvc", "first", "--wait=false"]);
    assert.equal(deleted.status, 0, deleted.stderr);
    const held = await waitFor(
      "kvol why to name the pod pvc-protection waits for",
      async () => {
        const why = await kvolCli(["why", "pvc/first"]);
        return why.stdout.includes("kubernetes.io/pvc-protection keeps it") ? why.stdout : undefined;
      },
      waitMs,
    );
    assert.ok(
      held.startsWith("claim default/first: Terminating: kubernetes.io/pvc-protection keeps it while a pod uses it"),
      held,
    );
    assert.ok(held.includes("pod default/first:"), held);
    assert.ok(held.includes("kubectl delete pod -n default first"), held);
  });
});
