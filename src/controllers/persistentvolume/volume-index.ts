/**
 * The PV controller's volume cache, indexed by access-mode set (index.go's
 * persistentVolumeOrderedIndex). Every volume is filed under the exact set of modes it offers. A
 * claim searches the sets that contain all of its modes, fewest modes first, so a claim for
 * ReadWriteOnce takes an RWO volume before an RWO+ROX one; within a set the smallest fit wins.
 */
import type { PersistentVolume, PersistentVolumeClaim } from "../../api/objects.ts";
import { accessModesFromKey, accessModesString } from "../../api/storage/access-modes.ts";
import { containsAllAccessModes } from "../../api/storage/pv-helpers.ts";
import { findMatchingVolume } from "../../api/storage/volume-matching.ts";
import { volumeNameOf } from "./annotations.ts";
import { VersionedCache } from "./versioned-cache.ts";

export class VolumeIndex {
  readonly cache: VersionedCache<PersistentVolume>;
  /** access-mode key → volume name → volume. */
  private readonly byAccessModes = new Map<string, Map<string, PersistentVolume>>();

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
    return [...(this.byAccessModes.get(key)?.values() ?? [])];
  }

  /** The volume `claim` should bind to, or undefined (see findMatchingVolume). */
  findByClaim(claim: PersistentVolumeClaim, delayBinding: boolean): PersistentVolume | undefined {
    for (const key of this.candidateKeys(claim.spec?.accessModes ?? [])) {
      const volumes = this.byAccessModes.get(key)?.values() ?? [];
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
    if (previous !== undefined) this.unfile(previous);
    if (next === undefined) return;
    const key = accessModesString(next.spec?.accessModes);
    let volumes = this.byAccessModes.get(key);
    if (volumes === undefined) {
      volumes = new Map();
      this.byAccessModes.set(key, volumes);
    }
    volumes.set(volumeNameOf(next), next);
  }

  private unfile(volume: PersistentVolume): void {
    const key = accessModesString(volume.spec?.accessModes);
    const volumes = this.byAccessModes.get(key);
    if (volumes === undefined) return;
    volumes.delete(volumeNameOf(volume));
    if (volumes.size === 0) this.byAccessModes.delete(key);
  }
}
