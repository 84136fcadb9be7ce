/**
 * A volume as the volume plugins see it (Kubernetes' `volume.Spec`): either a volume written inline in
 * a pod (`pod.spec.volumes[i]`) or a PersistentVolume reached through a claim. Plugins decide whether
 * they can handle it (`canSupport`) by looking at the source field that is set.
 */
import type { PersistentVolume, Volume } from "kubernetes-types/core/v1.js";

export type VolumeMode = "Filesystem" | "Block";

/** The PV access modes, spelled as the API spells them. */
export type AccessMode = "ReadWriteOnce" | "ReadOnlyMany" | "ReadWriteMany" | "ReadWriteOncePod";

export class VolumeSpec {
  /** Set for an inline pod volume. */
  readonly volume: Volume | undefined;
  /** Set for a PVC-backed volume. */
  readonly persistentVolume: PersistentVolume | undefined;
  /** True when the pod's claim reference (or the inline source) asks for a read-only mount. */
  readonly readOnly: boolean;

  private constructor(volume: Volume | undefined, persistentVolume: PersistentVolume | undefined, readOnly: boolean) {
    this.volume = volume;
    this.persistentVolume = persistentVolume;
    this.readOnly = readOnly;
  }

  /** An inline pod volume (`pod.spec.volumes[i]`). */
  static fromVolume(volume: Volume): VolumeSpec {
    if (!volume.name) throw new Error("volume spec: volume.name is required");
    return new VolumeSpec(volume, undefined, false);
  }

  /** A PersistentVolume; `readOnly` comes from the pod's `persistentVolumeClaim.readOnly`. */
  static fromPersistentVolume(persistentVolume: PersistentVolume, readOnly = false): VolumeSpec {
    if (!persistentVolume.metadata?.name) throw new Error("volume spec: persistentVolume.metadata.name is required");
    return new VolumeSpec(undefined, persistentVolume, readOnly);
  }

  /**
   * The spec name: the PV name for a PVC-backed volume, the pod volume name for an inline one. It names
   * the pod's volume directory and appears in events.
   */
  name(): string {
    if (this.volume) return this.volume.name;
    return this.persistentVolume?.metadata?.name ?? "";
  }

  /** Inline volumes are always filesystems; a PV is a filesystem unless `spec.volumeMode` says Block. */
  volumeMode(): VolumeMode {
    return this.persistentVolume?.spec?.volumeMode === "Block" ? "Block" : "Filesystem";
  }

  isBlock(): boolean {
    return this.volumeMode() === "Block";
  }

  /** The PV's access modes; empty for inline volumes (nothing is known about sharing). */
  accessModes(): AccessMode[] {
    return (this.persistentVolume?.spec?.accessModes ?? []) as AccessMode[];
  }

  /** The PV's `spec.mountOptions` (inline volumes have none). */
  mountOptions(): string[] {
    return [...(this.persistentVolume?.spec?.mountOptions ?? [])];
  }

  /** True when a PV only offers ReadOnlyMany: nothing may write, so exclusive-use checks can be skipped. */
  isReadOnlyManyOnly(): boolean {
    const modes = this.accessModes();
    return modes.length === 1 && modes[0] === "ReadOnlyMany";
  }

  /** The same spec with `readOnly` replaced. */
  withReadOnly(readOnly: boolean): VolumeSpec {
    return new VolumeSpec(this.volume, this.persistentVolume, readOnly);
  }
}
