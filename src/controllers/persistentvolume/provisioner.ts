/**
 * How the PV controller creates and removes storage: a Provisioner per provisioner name (the
 * StorageClass's `provisioner`), the way Kubernetes' in-tree volume plugins are provisionable,
 * deletable and recyclable. The controller owns everything about the PV object (name, claimRef,
 * class, reclaim policy, annotations, finalizers); a provisioner only makes the storage asset and
 * says how the PV should point at it.
 *
 * Lookup follows Kubernetes: a class whose provisioner is registered here is provisioned in-tree;
 * an unregistered name outside `kubernetes.io/` belongs to an external provisioner (CSI), which the
 * controller only waits for; an unregistered `kubernetes.io/` name (`kubernetes.io/no-provisioner`
 * among them) cannot be provisioned at all.
 */
import type { PersistentVolumeSpec, VolumeNodeAffinity } from "kubernetes-types/core/v1.js";
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { inTreeProvisionerPrefix } from "./annotations.ts";

export interface ProvisionRequest {
  /** The name the PV will have (`pvc-<claim uid>`); a good name for the storage asset too. */
  pvName: string;
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  /** The node the scheduler chose (`volume.kubernetes.io/selected-node`), for topology. */
  selectedNode?: Node;
}

/** What a provisioner made, in the words of a PV. */
export interface ProvisionedVolume {
  /** The volume source, e.g. `{ flexVolume: {...} }`. Fields the controller owns are overwritten. */
  source: PersistentVolumeSpec;
  /** The size actually provisioned (a quantity such as `2Gi`); at least what the claim requested. */
  capacity: string;
  /** Where the volume can be used, when not everywhere. */
  nodeAffinity?: VolumeNodeAffinity;
  labels?: Record<string, string>;
}

export interface Provisioner {
  /** The provisioner name classes refer to; written to the PV as `pv.kubernetes.io/provisioned-by`. */
  readonly name: string;
  /** False makes the controller refuse classes with mountOptions, which the PV would not honour. */
  readonly supportsMountOptions: boolean;
  /** Whether `volume` is one of this provisioner's kind, so it can delete or recycle it. */
  handles(volume: PersistentVolume): boolean;
  /** Creates the storage asset. Repeating it for the same pvName must not create a second asset. */
  provision(request: ProvisionRequest): Promise<ProvisionedVolume>;
  /** Deletes the storage asset; succeeds when it is already gone. Throws DeletedVolumeInUseError while in use. */
  delete(volume: PersistentVolume): Promise<void>;
  /** Erases the volume's data for the next claim (Recycle policy); absent when this kind cannot be recycled. */
  recycle?(volume: PersistentVolume): Promise<void>;
}

/**
 * The asset cannot be deleted yet because it is still in use (attached); the controller retries
 * quietly. An ordinary answer while a disk detaches, so it carries no stack trace.
 */
export class DeletedVolumeInUseError extends Error {
  constructor(message: string) {
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "DeletedVolumeInUseError";
  }
}

/** How a class is to be provisioned. */
type ProvisionerLookup =
  | { kind: "in-tree"; provisioner: Provisioner }
  | { kind: "external"; name: string }
  | { kind: "unsupported"; error: string };

export class ProvisionerRegistry {
  private readonly byName = new Map<string, Provisioner>();

  constructor(provisioners: readonly Provisioner[] = []) {
    for (const provisioner of provisioners) this.register(provisioner);
  }

  register(provisioner: Provisioner): void {
    if (this.byName.has(provisioner.name)) {
      throw new Error(`a provisioner named ${provisioner.name} is already registered`);
    }
    this.byName.set(provisioner.name, provisioner);
  }

  get(name: string): Provisioner | undefined {
    return this.byName.get(name);
  }

  isInTree(name: string): boolean {
    return this.byName.has(name);
  }

  /** Kubernetes' findProvisionablePlugin for a class's provisioner name. */
  lookup(name: string): ProvisionerLookup {
    const provisioner = this.byName.get(name);
    if (provisioner !== undefined) return { kind: "in-tree", provisioner };
    if (!name.startsWith(inTreeProvisionerPrefix)) return { kind: "external", name };
    return { kind: "unsupported", error: `no volume plugin matched name: ${name}` };
  }

  /** The one provisioner that handles `volume`, or undefined (FindDeletablePluginBySpec). */
  forVolume(volume: PersistentVolume): Provisioner | undefined {
    const matches = [...this.byName.values()].filter((provisioner) => provisioner.handles(volume));
    if (matches.length > 1) {
      throw new Error(`multiple volume plugins matched: ${matches.map((provisioner) => provisioner.name).join(",")}`);
    }
    return matches[0];
  }
}
