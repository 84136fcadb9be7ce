/**
 * kvol distributed, as processes: a 3-member etcd cluster on loopback ports, two `kvol server`
 * replicas on it (leader election on, their default) and two `kvol node` agents given both
 * servers, the leader's first. The leading server is killed with kill -9 while pods with volumes
 * are being started: the other server takes the Lease over, the nodes move to it, every pod runs,
 * and no VolumeAttachment or attached volume is left unaccounted for.
 *
 * Runs under CI=true (or KVOL_E2E=1); needs the etcd binary.
 */
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startTestEtcdCluster, type TestEtcdCluster } from "../api/store/testing/etcd-test-cluster.ts";
import { etcdBinary } from "../api/store/testing/etcd-test-server.ts";
import { suiteSkip } from "../testing/requirements.ts";
import { caFileName, caKeyFileName } from "./embedded/constants.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { KvolProcess, startedCluster } from "./testing/kvol-process.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 60_000;
const waitMs = 180_000;
const nodeNames = ["node-a", "node-b"];
const podCount = 12;
const podsBeforeKill = 3;

const e2e = process.env.CI === "true" || process.env.KVOL_E2E === "1";
function skipReason(): string | false {
  if (!e2e) {
    const reason = "set KVOL_E2E=1 or CI=true to run the distributed end-to-end test";
    console.log(reason);
    return reason;
  }
  const missing =
    etcdBinary() === undefined ? "etcd is not installed (Debian: apt-get install etcd-server)" : undefined;
  return suiteSkip("kvol distributed", missing);
}
const skip = skipReason();

type Json = Record<string, unknown>;

interface Lease {
  spec?: { holderIdentity?: string; leaseTransitions?: number; renewTime?: string };
}

describe("kvol distributed: two servers on a 3-member etcd, leader killed with kill -9", { skip }, () => {
  const dirs: string[] = [];
  const processes: KvolProcess[] = [];
  let etcd: TestEtcdCluster | undefined;
  after(async () => {
    for (const kvol of processes) await kvol.stop("SIGKILL");
    await etcd?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("the other server takes over, the nodes follow, every pod runs", { timeout: 600_000 }, async () => {
    etcd = await startTestEtcdCluster(3);
    const etcdServers = etcd.endpoints.join(",");
    const dirA = mkdtempSync(join(tmpdir(), "kvol-dist-a-"));
    const dirB = mkdtempSync(join(tmpdir(), "kvol-dist-b-"));
    dirs.push(dirA, dirB);
    const serverArgs = (dir: string) => ["server", "--port", "0", "--data-dir", dir, "--etcd-servers", etcdServers];
    const serverA = new KvolProcess([...serverArgs(dirA), "--node-tokens", nodeNames.join(",")]);
    processes.push(serverA);
    const a = await startedCluster(serverA, startTimeoutMs);
    // The servers share one token file and one certificate authority, as the machines of docs/distributed.md do.
    const dataA = new DataDir(dirA);
    for (const file of ["tokens.csv", caFileName, caKeyFileName]) {
      copyFileSync(join(dirA, file), join(dirB, file));
      chmodSync(join(dirB, file), 0o600);
    }
    const serverB = new KvolProcess(serverArgs(dirB));
    processes.push(serverB);
    const b = await startedCluster(serverB, startTimeoutMs);
    const identityOf = async (kvol: KvolProcess) =>
      (await kvol.waitForOutput(/leader election: candidate (\S+) for the Lease/, startTimeoutMs))[1] ?? "";
    const identities = new Map([
      [await identityOf(serverA), { kvol: serverA, url: a.url }],
      [await identityOf(serverB), { kvol: serverB, url: b.url }],
    ]);

    const headers = { Authorization: `Bearer ${dataA.ensureAdminToken()}`, "Content-Type": "application/json" };
    let apiUrls = [a.url, b.url];
    const request = async (method: string, path: string, body?: unknown): Promise<Response> => {
      let lastError: unknown;
      for (const url of apiUrls) {
        try {
          return await a.fetch(`${url}${path}`, {
            method,
            headers,
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
        } catch (error) {
          lastError = error;
        }
      }
      throw lastError;
    };
    const get = async <T = Json>(path: string): Promise<T> => (await (await request("GET", path)).json()) as T;
    const create = async (path: string, body: unknown): Promise<void> => {
      const response = await request("POST", path, body);
      assert.equal(response.status, 201, await response.text());
    };
    const lease = () =>
      get<Lease>("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager");

    const leaderIdentity = await waitFor(
      "a leader elected",
      async () => {
        const holder = (await lease()).spec?.holderIdentity;
        return holder !== undefined && identities.has(holder) ? holder : undefined;
      },
      startTimeoutMs,
    );
    const leader = identities.get(leaderIdentity);
    const [followerIdentity, follower] = [...identities].find(([identity]) => identity !== leaderIdentity) ?? [];
    assert.ok(leader && follower && followerIdentity);
    assert.match(follower.kvol.stdout + leader.kvol.stdout, /Ready: 0 node/);

    for (const name of nodeNames) {
      const node = new KvolProcess([
        "node",
        "--server",
        `${leader.url},${follower.url}`,
        "--certificate-authority",
        a.caFile,
        "--name",
        name,
        "--token-file",
        dataA.nodeTokenFile(name),
      ]);
      processes.push(node);
    }
    await waitFor(
      "both nodes registered",
      async () => ((await get("/api/v1/nodes")).items as unknown[]).length === nodeNames.length || undefined,
      startTimeoutMs,
    );

    const createPod = async (i: number): Promise<void> => {
      await create("/api/v1/persistentvolumes", {
        apiVersion: "v1",
        kind: "PersistentVolume",
        metadata: { name: `pv-${i}` },
        spec: {
          capacity: { storage: "1Gi" },
          accessModes: ["ReadWriteOnce"],
          storageClassName: "manual",
          hostPath: { path: `/srv/data-${i}`, type: "DirectoryOrCreate" },
        },
      });
      await create("/api/v1/namespaces/default/persistentvolumeclaims", {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: `data-${i}` },
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: "manual",
          resources: { requests: { storage: "1Gi" } },
          volumeName: `pv-${i}`,
        },
      });
      await create("/api/v1/namespaces/default/pods", {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `web-${i}` },
        spec: {
          containers: [{ name: "main", image: "busybox", volumeMounts: [{ name: "d", mountPath: "/data" }] }],
          volumes: [{ name: "d", persistentVolumeClaim: { claimName: `data-${i}` } }],
        },
      });
    };
    for (let i = 0; i < podCount / 2; i++) await createPod(i);
    const runningPods = async () =>
      ((await get<{ items: { status?: { phase?: string } }[] }>("/api/v1/namespaces/default/pods")).items ?? []).filter(
        (pod) => pod.status?.phase === "Running",
      ).length;
    await waitFor(
      `${podsBeforeKill} pods Running`,
      async () => (await runningPods()) >= podsBeforeKill || undefined,
      waitMs,
    );
    const nodeLeaseBefore = await get<Lease>("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a");

    assert.equal(await leader.kvol.stop("SIGKILL"), null);
    apiUrls = [follower.url];
    // The other half arrives while no server leads yet.
    for (let i = podCount / 2; i < podCount; i++) await createPod(i);

    await waitFor(
      "the follower holds the Lease",
      async () => ((await lease()).spec?.holderIdentity === followerIdentity ? true : undefined),
      waitMs,
    );
    assert.equal((await lease()).spec?.leaseTransitions, 1);
    await waitFor("every pod Running", async () => (await runningPods()) === podCount || undefined, waitMs);
    // The nodes moved to the surviving server: their Leases are still renewed.
    await waitFor(
      "node-a's Lease renewed through the surviving server",
      async () =>
        (await get<Lease>("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a")).spec?.renewTime !==
          nodeLeaseBefore.spec?.renewTime || undefined,
      waitMs,
    );
    const attachments = (await get("/apis/storage.k8s.io/v1/volumeattachments")).items as unknown[];
    assert.deepEqual(attachments, [], "no VolumeAttachment for volumes that need no attach");
    for (const kvol of processes.slice(2)) assert.equal(await kvol.stop("SIGTERM"), 0, kvol.stderr);
    assert.equal(await follower.kvol.stop("SIGTERM"), 0, follower.kvol.stderr);
  });
});
