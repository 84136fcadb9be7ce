/**
 * The PV controller's volume cache, indexed by access-mode set (index.go's
 * persistentVolumeOrderedIndex). Every volume is filed under the exact set of modes it offers. A
 * claim searches the sets that contain all of its modes, fewest modes first, so a claim for
 * ReadWriteOnce takes an RWO volume before an RWO+ROX one; within a set the smallest fit wins.
 * Within a set, volumes are kept apart by claimRef: a claim can only take a volume that names it or
 * one that names no claim, so it looks at those two groups alone instead of every volume of the set
 * (which made binding N claims cost N × volumes). Each group keeps the set's order of arrival, so
 * the first among equals is the same volume as in one list.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { accessModesFromKey, accessModesString } from "../../api/storage/access-modes.ts";
import { containsAllAccessModes } from "../../api/storage/pv-helpers.ts";
import { findMatchingVolume } from "../../api/storage/volume-matching.ts";
import { claimKeyOf, claimRefKeyOf, volumeNameOf } from "./annotations.ts";
import { VersionedCache } from "./versioned-cache.ts";

export class VolumeIndex {
  readonly cache: VersionedCache<PersistentVolume>;
  /** access-mode key → the volumes filed under it. */
  private readonly byAccessModes = new Map<string, AccessModeSet>();

  constructor() {
    this.cache = new VersionedCache<PersistentVolume>((previous, next) => this.refile(previous, next));
  }

  get(name: string): PersistentVolume | undefined {
    return this.cache.get(name);
  }

  /** See VersionedCache.storeIfNotOlder. */
  storeIfNotOlder(volume: PersistentVolume): boolean {
    return this.cache.storeIfNotOlder(volume);
  }

  /** See VersionedCache.newest. */
  newest(volume: PersistentVolume): PersistentVolume {
    return this.cache.newest(volume);
  }

  delete(name: string): PersistentVolume | undefined {
    return this.cache.delete(name);
  }

  /** The access-mode sets that hold volumes, as index keys. */
  accessModeKeys(): string[] {
    return [...this.byAccessModes.keys()];
  }

  /** The volumes filed under one exact access-mode set. */
  listByAccessModes(key: string): PersistentVolume[] {
    return [...(this.byAccessModes.get(key)?.all.values() ?? [])];
  }

  /** The volume `claim` should bind to, or undefined (see findMatchingVolume). */
  findByClaim(claim: PersistentVolumeClaim, delayBinding: boolean): PersistentVolume | undefined {
    for (const key of this.candidateKeys(claim.spec?.accessModes ?? [])) {
      const volumes = this.byAccessModes.get(key)?.candidatesFor(claim) ?? [];
      const match = findMatchingVolume(claim, volumes, { delayBinding });
      if (match !== undefined) return match;
    }
    return undefined;
  }

  /** Indexed sets containing every requested mode, fewest modes first (ties by key, for a stable order). */
  private candidateKeys(requested: readonly string[]): string[] {
    return this.accessModeKeys()
      .map((key) => ({ key, modes: accessModesFromKey(key) }))
      .filter(({ modes }) => containsAllAccessModes(modes, requested))
      .sort((a, b) => a.modes.length - b.modes.length || a.key.localeCompare(b.key))
      .map(({ key }) => key);
  }

  private refile(previous: PersistentVolume | undefined, next: PersistentVolume | undefined): void {
    if (previous === undefined) {
      if (next !== undefined) this.file(next, accessModesString(next.spec?.accessModes));
      return;
    }
    const previousKey = accessModesString(previous.spec?.accessModes);
    if (next === undefined) {
      this.unfile(previous, previousKey);
      return;
    }
    const nextKey =
      next.spec?.accessModes === previous.spec?.accessModes ? previousKey : accessModesString(next.spec?.accessModes);
    // Most updates (phase, annotations, a re-store of the same version) keep the volume's set and claim.
    const volumes = this.byAccessModes.get(previousKey);
    if (volumes !== undefined && nextKey === previousKey && sameClaimRef(previous, next)) {
      volumes.replace(next);
      return;
    }
    this.unfile(previous, previousKey);
    this.file(next, nextKey);
  }

  private file(volume: PersistentVolume, key: string): void {
    let volumes = this.byAccessModes.get(key);
    if (volumes === undefined) {
      volumes = new AccessModeSet();
      this.byAccessModes.set(key, volumes);
    }
    volumes.add(volume);
  }

  private unfile(volume: PersistentVolume, key: string): void {
    const volumes = this.byAccessModes.get(key);
    if (volumes === undefined) return;
    volumes.remove(volume);
    if (volumes.all.size === 0) this.byAccessModes.delete(key);
  }
}

/** Whether both versions name the same claim, or both none (`claimRefKey` would be equal). */
function sameClaimRef(a: PersistentVolume, b: PersistentVolume): boolean {
  const refA = a.spec?.claimRef;
  const refB = b.spec?.claimRef;
  if (refA == null || refB == null) return (refA == null) === (refB == null);
  return (refA.namespace ?? "") === (refB.namespace ?? "") && (refA.name ?? "") === (refB.name ?? "");
}

/** `namespace/name` of the claim a volume's claimRef names, or undefined for an unclaimed volume. */
function claimRefKey(volume: PersistentVolume): string | undefined {
  return volume.spec?.claimRef == null ? undefined : claimRefKeyOf(volume);
}

/** The volumes of one access-mode set: all of them, and the same grouped by the claim they name. */
class AccessModeSet {
  /** volume name → volume, in order of arrival (an update moves a volume to the end). */
  readonly all = new Map<string, PersistentVolume>();
  private readonly unclaimed = new Map<string, PersistentVolume>();
  /** claim key → volume name → volume. */
  private readonly byClaimRef = new Map<string, Map<string, PersistentVolume>>();

  add(volume: PersistentVolume): void {
    const name = volumeNameOf(volume);
    this.all.set(name, volume);
    const claimKey = claimRefKey(volume);
    if (claimKey === undefined) {
      this.unclaimed.set(name, volume);
      return;
    }
    let named = this.byClaimRef.get(claimKey);
    if (named === undefined) {
      named = new Map();
      this.byClaimRef.set(claimKey, named);
    }
    named.set(name, volume);
  }

  remove(volume: PersistentVolume): void {
    const name = volumeNameOf(volume);
    this.all.delete(name);
    const claimKey = claimRefKey(volume);
    if (claimKey === undefined) {
      this.unclaimed.delete(name);
      return;
    }
    const named = this.byClaimRef.get(claimKey);
    named?.delete(name);
    if (named?.size === 0) this.byClaimRef.delete(claimKey);
  }

  /**
   * Files a new version of a volume in the same group (same name and claimRef) as an update: it
   * moves to the end of its set and of its group, as `remove` then `add` would, with no map made or dropped.
   */
  replace(volume: PersistentVolume): void {
    const name = volumeNameOf(volume);
    const claimKey = claimRefKey(volume);
    const group = claimKey === undefined ? this.unclaimed : this.byClaimRef.get(claimKey);
    if (group === undefined || !this.all.has(name)) {
      this.add(volume);
      return;
    }
    this.all.delete(name);
    this.all.set(name, volume);
    group.delete(name);
    group.set(name, volume);
  }

  /** The volumes `claim` could take: those naming it, then the unclaimed ones. */
  *candidatesFor(claim: PersistentVolumeClaim): Iterable<PersistentVolume> {
    const named = this.byClaimRef.get(claimKeyOf(claim));
    if (named !== undefined) yield* named.values();
    yield* this.unclaimed.values();
  }
}
