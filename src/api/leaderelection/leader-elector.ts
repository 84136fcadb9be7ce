/**
 * client-go's leader election on a coordination.k8s.io/v1 Lease, on the Clock.
 *
 * A candidate tries every retry period (with client-go's jitter) to acquire the Lease: it may when
 * the Lease is missing, released (no holder), or unchanged for a whole lease duration of *its own*
 * clock since it last saw it change — followers never compare their clock with the holder's
 * renewTime. The leader renews every retry period; a renewal round that has not succeeded within
 * the renew deadline (a hung or failing API) ends the leadership: `onStoppedLeading` is called and
 * the elector stops (kube-controller-manager then exits). Each write keeps client-go's record:
 * holderIdentity, leaseDurationSeconds, acquireTime (kept while the same holder renews), renewTime
 * and leaseTransitions (one more at every change of holder).
 */
import type { Lease, LeaseSpec } from "kubernetes-types/coordination/v1.js";
import { type Clock, formatRfc3339Micro, type Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Rng } from "../../runtime/rng.ts";
import type { Client } from "../client/client.ts";
import { clone } from "../client/copy.ts";
import { isNotFound } from "../errors.ts";
import { leaderElectionJitterFactor, releasedLeaseDurationSeconds } from "./constants.ts";

interface LeaderElectorOptions {
  client: Client;
  clock: Clock;
  /** Draws the jitter of the candidates' retries. */
  rng: Rng;
  logger: Logger;
  lease: { namespace: string; name: string };
  /** This candidate's holderIdentity (kube-controller-manager: `<hostname>_<uuid>`). */
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  onStartedLeading: () => void;
  /** Called once when a leadership ends: the renew deadline passed, or `stop` while leading. */
  onStoppedLeading: () => void;
  /** Called when the holder this candidate sees changes (including to itself). */
  onNewLeader?: (identity: string) => void;
  /** `stop` while leading gives the Lease up at once (client-go ReleaseOnCancel). */
  releaseOnCancel?: boolean;
}

type ElectorState = "idle" | "acquiring" | "leading" | "stopped";

/** The fields client-go compares to notice that the record changed. */
function recordKey(spec: LeaseSpec | undefined): string {
  return JSON.stringify([
    spec?.holderIdentity ?? "",
    spec?.leaseDurationSeconds ?? 0,
    spec?.acquireTime ?? "",
    spec?.renewTime ?? "",
    spec?.leaseTransitions ?? 0,
  ]);
}

export class LeaderElector {
  private readonly options: LeaderElectorOptions;
  private state: ElectorState = "idle";
  /** The record as last seen, and when (this candidate's clock): the base of the expiry. */
  private observedKey = "";
  private observedAtMs = 0;
  private observedHolder = "";
  private latest: Lease | undefined;
  private retryTimer: Timer | undefined;
  private deadlineTimer: Timer | undefined;
  /** Counts leadership rounds so a reply that arrives after a round ended is ignored. */
  private round = 0;

  constructor(options: LeaderElectorOptions) {
    this.options = options;
  }

  get isLeader(): boolean {
    return this.state === "leading";
  }

  /** The holder last seen in the Lease ("" before the first read or after a release). */
  get leader(): string {
    return this.observedHolder;
  }

  private get leaseKey(): string {
    return `${this.options.lease.namespace}/${this.options.lease.name}`;
  }

  /** Starts trying to acquire the Lease. */
  start(): void {
    if (this.state !== "idle") throw new Error("LeaderElector.start: already started");
    this.state = "acquiring";
    this.options.logger.info(`attempting to acquire leader lease ${this.leaseKey}...`);
    void this.acquireAttempt();
  }

  /**
   * Stops trying and, when leading, stops leading (giving the Lease up with `releaseOnCancel`).
   * `crash()` is the same without the release: what a killed process leaves behind.
   */
  async stop(): Promise<void> {
    const wasLeading = this.halt();
    if (!wasLeading) return;
    if (this.options.releaseOnCancel) await this.release();
    this.options.onStoppedLeading();
  }

  /** The process dies: no release, no callback; the Lease stays until it expires. */
  crash(): void {
    this.halt();
  }

  private halt(): boolean {
    const wasLeading = this.state === "leading";
    this.state = "stopped";
    this.round++;
    this.retryTimer?.cancel();
    this.deadlineTimer?.cancel();
    return wasLeading;
  }

  private async acquireAttempt(): Promise<void> {
    const round = this.round;
    const acquired = await this.tryAcquireOrRenew();
    if (this.state !== "acquiring" || round !== this.round) return;
    if (acquired) {
      this.options.logger.info(`successfully acquired lease ${this.leaseKey}`);
      this.state = "leading";
      this.options.onStartedLeading();
      this.scheduleRenewRound(this.options.retryPeriodMs);
      return;
    }
    // wait.JitterUntil(…, retryPeriod, 1.2, sliding): the wait starts when the attempt ends.
    const jitterMs = this.options.rng.next() * leaderElectionJitterFactor * this.options.retryPeriodMs;
    this.retryTimer = this.options.clock.setTimer(this.options.retryPeriodMs + jitterMs, () => {
      void this.acquireAttempt();
    });
  }

  /** wait.Until(PollImmediateUntil(retryPeriod, tryAcquireOrRenew, renewDeadline), retryPeriod). */
  private scheduleRenewRound(delayMs: number): void {
    this.retryTimer = this.options.clock.setTimer(delayMs, () => this.startRenewRound());
  }

  private startRenewRound(): void {
    const round = ++this.round;
    this.deadlineTimer = this.options.clock.setTimer(this.options.renewDeadlineMs, () => {
      if (round === this.round && this.state === "leading") this.loseLeadership();
    });
    void this.renewAttempt(round);
  }

  private async renewAttempt(round: number): Promise<void> {
    const renewed = await this.tryAcquireOrRenew();
    if (round !== this.round || this.state !== "leading") return;
    if (renewed) {
      this.deadlineTimer?.cancel();
      this.scheduleRenewRound(this.options.retryPeriodMs);
      return;
    }
    this.retryTimer = this.options.clock.setTimer(this.options.retryPeriodMs, () => {
      void this.renewAttempt(round);
    });
  }

  private loseLeadership(): void {
    this.options.logger.error(`failed to renew lease ${this.leaseKey}: timed out waiting for the condition`);
    this.halt();
    this.options.onStoppedLeading();
  }

  /** One try: create the Lease, renew it, or take it over once it expired; false when it may not. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, clock, lease, logger } = this.options;
    const nowMs = clock.now();
    let current: Lease;
    try {
      current = await client.leases.get(lease.namespace, lease.name);
    } catch (error) {
      if (!isNotFound(error)) {
        logger.error(`error retrieving resource lock ${this.leaseKey}: ${errorMessage(error)}`);
        return false;
      }
      return this.create(nowMs);
    }
    this.observe(current.spec, nowMs);
    const holder = current.spec?.holderIdentity ?? "";
    const expired = this.observedAtMs + this.options.leaseDurationMs <= nowMs;
    if (holder !== "" && holder !== this.options.identity && !expired) {
      logger.debug(`lock is held by ${holder} and has not yet expired`);
      return false;
    }
    const same = holder === this.options.identity;
    const updated = clone(current);
    updated.spec = this.record(nowMs, {
      acquireTime: same ? current.spec?.acquireTime : undefined,
      leaseTransitions: (current.spec?.leaseTransitions ?? 0) + (same ? 0 : 1),
    });
    try {
      this.latest = await client.leases.update(updated);
    } catch (error) {
      logger.error(`Failed to update lock: ${errorMessage(error)}`);
      return false;
    }
    this.observe(this.latest.spec, nowMs);
    return true;
  }

  private async create(nowMs: number): Promise<boolean> {
    const { client, lease, logger } = this.options;
    try {
      this.latest = await client.leases.create({
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: lease.name, namespace: lease.namespace },
        spec: this.record(nowMs, { acquireTime: undefined, leaseTransitions: 0 }),
      });
    } catch (error) {
      logger.error(`error initially creating leader election record: ${errorMessage(error)}`);
      return false;
    }
    this.observe(this.latest.spec, nowMs);
    return true;
  }

  private record(nowMs: number, kept: { acquireTime: string | undefined; leaseTransitions: number }): LeaseSpec {
    const now = formatRfc3339Micro(nowMs);
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.round(this.options.leaseDurationMs / 1_000),
      acquireTime: kept.acquireTime ?? now,
      renewTime: now,
      leaseTransitions: kept.leaseTransitions,
    };
  }

  /** Remembers the record and when it was first seen; reports a new holder. */
  private observe(spec: LeaseSpec | undefined, nowMs: number): void {
    const key = recordKey(spec);
    if (key === this.observedKey) return;
    this.observedKey = key;
    this.observedAtMs = nowMs;
    const holder = spec?.holderIdentity ?? "";
    if (holder !== this.observedHolder) {
      this.observedHolder = holder;
      if (holder !== "") {
        if (holder !== this.options.identity) this.options.logger.info(`new leader elected: ${holder}`);
        this.options.onNewLeader?.(holder);
      }
    }
  }

  /** client-go release(): no holder, a one-second lease, the transitions kept. */
  private async release(): Promise<void> {
    const latest = this.latest;
    if (latest === undefined) return;
    const released = clone(latest);
    const now = formatRfc3339Micro(this.options.clock.now());
    released.spec = {
      ...released.spec,
      holderIdentity: "",
      leaseDurationSeconds: releasedLeaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
    };
    try {
      await this.options.client.leases.update(released);
    } catch (error) {
      this.options.logger.error(`Failed to release lock: ${errorMessage(error)}`);
    }
  }
}
