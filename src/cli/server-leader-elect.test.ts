import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { etcdTestOptions, startTestEtcd } from "../api/store/testing/etcd-test-server.ts";
import { DataDir } from "./embedded/data-dir.ts";
import { parseServerArguments } from "./server-command.ts";
import { runServerInProcess } from "./testing/in-process-server.ts";
import { waitFor } from "./testing/wait-for.ts";

const startTimeoutMs = 60_000;

describe("kvol server --leader-elect", () => {
  it("is on by default, as in kube-controller-manager, and takes =true or =false", () => {
    const leaderElect = (argv: string[]) => {
      const parsed = parseServerArguments(argv);
      assert.ok(!("help" in parsed));
      return parsed.leaderElect;
    };
    assert.equal(leaderElect([]), true);
    assert.equal(leaderElect(["--leader-elect"]), true);
    assert.equal(leaderElect(["--leader-elect=false"]), false);
    assert.equal(leaderElect(["--leader-elect=true", "--port", "0"]), true);
    assert.throws(
      () => parseServerArguments(["--leader-elect=maybe"]),
      /^Error: --leader-elect must be true or false, got "maybe"$/,
    );
  });

  it("holds the Leases kube-system/kube-controller-manager and kube-scheduler by default, and leaves it alone with =false", {
    timeout: 120_000,
  }, async () => {
    for (const [flag, elected] of [[[], true] as const, [["--leader-elect=false"], false] as const]) {
      const dir = mkdtempSync(join(tmpdir(), "kvol-leader-elect-"));
      const server = runServerInProcess(["--port", "0", "--data-dir", dir, ...flag]);
      try {
        await server.ready(startTimeoutMs);
        const identity = /leader election: candidate (\S+) for the Lease/.exec(server.stdout())?.[1];
        assert.equal(identity !== undefined, elected, server.stdout());
        const url = server.url();
        const headers = { Authorization: `Bearer ${new DataDir(dir).ensureAdminToken()}` };
        const holder = async (lease = "kube-controller-manager") => {
          const leasePath = `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${lease}`;
          const answer = await server.fetch(`${url}${leasePath}`, { headers });
          if (answer.status === 404) return undefined;
          return ((await answer.json()) as { spec?: { holderIdentity?: string } }).spec?.holderIdentity;
        };
        if (elected) {
          assert.equal(await waitFor("the Lease held", () => holder(), startTimeoutMs), identity);
          // kube-scheduler is elected on a Lease of its own.
          assert.equal(
            await waitFor("the scheduler's Lease held", () => holder("kube-scheduler"), startTimeoutMs),
            identity,
          );
        } else {
          // The controllers run at once, and nothing ever takes the Lease.
          assert.equal(await holder(), undefined);
          assert.equal(await holder("kube-scheduler"), undefined);
        }
      } finally {
        assert.equal(await server.stop(), 0);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it("exits with status 1 and `leaderelection lost` when it cannot renew for 10 s", etcdTestOptions(), async () => {
    const etcd = await startTestEtcd();
    const dir = mkdtempSync(join(tmpdir(), "kvol-leader-lost-"));
    try {
      const server = runServerInProcess(["--port", "0", "--data-dir", dir, "--etcd-servers", etcd.endpoint]);
      await server.ready(startTimeoutMs);
      await waitFor(
        "leading",
        () => /started leading/.test(readFileSync(join(dir, "kvol.log"), "utf8")) || undefined,
        startTimeoutMs,
      );
      await etcd.crash();
      assert.equal(await server.running, 1);
      assert.match(server.stderr(), /kvol server: leaderelection lost\n/);
    } finally {
      await etcd.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
