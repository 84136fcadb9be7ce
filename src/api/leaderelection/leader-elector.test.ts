/**
 * Leader election on virtual time with kube-controller-manager's timings written literally:
 * lease 15 s, renew deadline 10 s, retry period 2 s (jitter up to 1.2 × 2 s for candidates).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import { formatRfc3339Micro } from "../../runtime/clock.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { Rng } from "../../runtime/rng.ts";
import { defaultVirtualEpochMs, VirtualClock } from "../../runtime/virtual-clock.ts";
import type { Client } from "../client/client.ts";
import { InProcessClient } from "../client/in-process-client.ts";
import { createMemoryStore } from "../store/memory-store.ts";
import { DEFAULT_TIMERS } from "../timers.ts";
import { LeaderElector } from "./leader-elector.ts";

const SECOND = 1_000;

interface Candidate {
  elector: LeaderElector;
  started: number[];
  stopped: number[];
}

/** A store, a clock, and an API whose Lease calls can be made to fail or to hang. */
function world() {
  const clock = new VirtualClock();
  const rng = new Rng(7);
  const store = createMemoryStore({ clock, random: rng.stream("store") });
  const client = new InProcessClient(store);
  const logs = new MemorySink();
  const api = { broken: false, hung: false };
  const leases = new Proxy(client.leases, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (api.hung) return new Promise(() => undefined);
        if (api.broken) return Promise.reject(new Error("dial tcp 10.0.0.1:6443: connect: connection refused"));
        return value.apply(target, args);
      };
    },
  });
  const flaky = new Proxy(client, {
    get: (target, property, receiver) => (property === "leases" ? leases : Reflect.get(target, property, receiver)),
  }) as Client;
  const candidate = (identity: string, options: { flaky?: boolean; releaseOnCancel?: boolean } = {}): Candidate => {
    const started: number[] = [];
    const stopped: number[] = [];
    const elector = new LeaderElector({
      client: options.flaky ? flaky : client,
      clock,
      rng: rng.stream(identity),
      logger: new Logger({ clock, sink: logs, level: "debug" }).with({ identity }),
      lease: { namespace: "kube-system", name: "kube-controller-manager" },
      identity,
      leaseDurationMs: DEFAULT_TIMERS.leaderElectionLeaseDurationMs,
      renewDeadlineMs: DEFAULT_TIMERS.leaderElectionRenewDeadlineMs,
      retryPeriodMs: DEFAULT_TIMERS.leaderElectionRetryPeriodMs,
      onStartedLeading: () => started.push(clock.now() - clock0),
      onStoppedLeading: () => stopped.push(clock.now() - clock0),
      ...(options.releaseOnCancel ? { releaseOnCancel: true } : {}),
    });
    return { elector, started, stopped };
  };
  const clock0 = clock.now();
  const lease = (): Promise<Lease> => client.leases.get("kube-system", "kube-controller-manager");
  return { clock, api, candidate, lease, logs };
}

describe("leader election (client-go, kube-controller-manager timings)", () => {
  it("uses kube-controller-manager's lease 15 s, renew deadline 10 s and retry period 2 s", () => {
    assert.equal(DEFAULT_TIMERS.leaderElectionLeaseDurationMs, 15 * SECOND);
    assert.equal(DEFAULT_TIMERS.leaderElectionRenewDeadlineMs, 10 * SECOND);
    assert.equal(DEFAULT_TIMERS.leaderElectionRetryPeriodMs, 2 * SECOND);
  });

  it("elects exactly one of two candidates and keeps client-go's record in the Lease", async () => {
    const w = world();
    const a = w.candidate("host-a_1");
    const b = w.candidate("host-b_2");
    a.elector.start();
    b.elector.start();
    await w.clock.runFor(20 * SECOND);
    assert.deepEqual([a.started, b.started], [[0], []]);
    assert.equal(b.elector.leader, "host-a_1");
    const lease = await w.lease();
    assert.deepEqual(lease.spec, {
      holderIdentity: "host-a_1",
      leaseDurationSeconds: 15,
      acquireTime: "2026-01-01T00:00:00.000000Z",
      renewTime: "2026-01-01T00:00:20.000000Z",
      leaseTransitions: 0,
    });
    await a.elector.stop();
    await b.elector.stop();
  });

  it("lets a follower take over a dead leader's Lease 15 s after it last saw it change, not sooner", async () => {
    const w = world();
    const a = w.candidate("host-a_1");
    const b = w.candidate("host-b_2");
    a.elector.start();
    b.elector.start();
    await w.clock.runFor(20 * SECOND);
    a.elector.crash();
    // The last renewal was at 20 s; b sees it at its next try (at most 2 s + 2.4 s of jitter later).
    await w.clock.runFor(15 * SECOND - 1);
    assert.deepEqual(b.started, []);
    await w.clock.runFor(9 * SECOND);
    assert.equal(b.started.length, 1);
    const takeover = b.started[0] ?? 0;
    assert.ok(takeover >= 35 * SECOND && takeover <= 44 * SECOND, `took over at ${takeover} ms`);
    const spec = (await w.lease()).spec;
    assert.equal(spec?.holderIdentity, "host-b_2");
    assert.equal(spec?.leaseTransitions, 1);
    assert.equal(spec?.acquireTime, formatRfc3339Micro(defaultVirtualEpochMs + takeover));
    assert.deepEqual(a.stopped, [], "a killed process calls nothing");
    await b.elector.stop();
  });

  it("stops leading 10 s after the renewal round that cannot reach the API began", async () => {
    const w = world();
    const a = w.candidate("host-a_1", { flaky: true });
    a.elector.start();
    await w.clock.runFor(20_500);
    w.api.broken = true;
    // Rounds start every 2 s: the one at 22 s fails at 22, 24, 26, 28 and 30 s and ends at 32 s.
    await w.clock.runFor(11_499);
    assert.deepEqual(a.stopped, []);
    await w.clock.runFor(1);
    assert.deepEqual(a.stopped, [32 * SECOND]);
    assert.equal(a.elector.isLeader, false);
    assert.ok(
      w.logs
        .lines()
        .some((line) => line.includes("failed to renew lease kube-system/kube-controller-manager: timed out")),
    );
    // It does not come back by itself: the process exits (or its controllers stay stopped).
    w.api.broken = false;
    await w.clock.runFor(60 * SECOND);
    assert.deepEqual(a.started, [0]);
  });

  it("stops leading at the renew deadline when the API hangs instead of answering", async () => {
    const w = world();
    const a = w.candidate("host-a_1", { flaky: true });
    a.elector.start();
    await w.clock.runFor(20_500);
    w.api.hung = true;
    await w.clock.runFor(20 * SECOND);
    assert.deepEqual(a.stopped, [32 * SECOND]);
  });

  it("gives the Lease up on a clean stop so the other candidate takes over at its next try", async () => {
    const w = world();
    const a = w.candidate("host-a_1", { releaseOnCancel: true });
    const b = w.candidate("host-b_2");
    a.elector.start();
    b.elector.start();
    await w.clock.runFor(20 * SECOND);
    await a.elector.stop();
    assert.deepEqual(a.stopped, [20 * SECOND]);
    assert.equal((await w.lease()).spec?.leaseDurationSeconds, 1);
    await w.clock.runFor(4_400);
    assert.equal(b.started.length, 1);
    assert.equal((await w.lease()).spec?.leaseTransitions, 1);
    await b.elector.stop();
  });
});
