/**
 * The etcd leases that expire keys written with a TTL (Events), as kube-apiserver's lease manager
 * hands them out: a lease is granted for the TTL plus a reuse window and shared by the writes
 * that come while it still outlives their TTL, so a burst of Events costs one grant rather than
 * one per Event. etcd itself removes the keys when the lease runs out (its own clock), and the
 * backend's etcd watch reports those removals as deletes.
 */
import type { Etcd3 } from "etcd3";
import type { Clock } from "../../runtime/clock.ts";
import { msPerSecond } from "../../runtime/duration.ts";
import {
  etcdLeaseMaxAttachedObjects,
  etcdLeaseReuseFractionOfTtl,
  etcdLeaseReuseMaxDurationSeconds,
} from "./constants.ts";

/** How long a lease for `ttlSeconds` may be shared beyond the TTL (kube-apiserver's reuse window). */
export function leaseReuseSeconds(ttlSeconds: number): number {
  return Math.min(Math.floor(ttlSeconds * etcdLeaseReuseFractionOfTtl), etcdLeaseReuseMaxDurationSeconds);
}

interface GrantedLease {
  id: string;
  expiresAtMs: number;
  attached: number;
}

export class EtcdLeases {
  private readonly client: Etcd3;
  private readonly clock: Clock | undefined;
  private last: GrantedLease | undefined;

  /** Without a clock no lease is shared: each write gets its own (correct, but one grant each). */
  constructor(client: Etcd3, clock: Clock | undefined) {
    this.client = client;
    this.clock = clock;
  }

  /** The id of a lease that keeps a key written now for at least `ttlSeconds`, at most the reuse window more. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
      throw new RangeError(`a TTL must be a whole number of seconds from 1 on, got ${ttlSeconds}`);
    }
    const reuseSeconds = leaseReuseSeconds(ttlSeconds);
    const reusable = this.reusable(ttlSeconds, reuseSeconds);
    if (reusable !== undefined) {
      reusable.attached++;
      return reusable.id;
    }
    const grantedSeconds = ttlSeconds + reuseSeconds;
    const startMs = this.clock?.now();
    const response = await this.client.leaseClient.leaseGrant({ TTL: grantedSeconds });
    if (startMs !== undefined) {
      this.last = { id: response.ID, expiresAtMs: startMs + grantedSeconds * msPerSecond, attached: 1 };
    }
    return response.ID;
  }

  /** The last lease, when it outlives a TTL starting now yet not by more than the reuse window. */
  private reusable(ttlSeconds: number, reuseSeconds: number): GrantedLease | undefined {
    const last = this.last;
    if (last === undefined || this.clock === undefined) return undefined;
    const nowMs = this.clock.now();
    const outlivesTtl = nowMs + ttlSeconds * msPerSecond < last.expiresAtMs;
    // At most the reuse window longer (equal counts: a virtual clock may not have moved at all).
    const withinWindow = last.expiresAtMs <= nowMs + (ttlSeconds + reuseSeconds) * msPerSecond;
    return outlivesTtl && withinWindow && last.attached < etcdLeaseMaxAttachedObjects ? last : undefined;
  }
}
