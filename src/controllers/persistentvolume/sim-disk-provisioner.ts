/**
 * Provisions kvol's simulated attachable disks (`kvol.io/sim-disk`) the way Kubernetes' in-tree
 * cloud disk plugins did (GCE PD): one disk per claim named after the PV, its size rounded up to
 * whole GiB, in the selected node's zone (or an allowed zone), with the zone as a PV label and as
 * the PV's required node affinity. The PV names the disk as sim-disk-source.ts describes.
 *
 * StorageClass parameters:
 * - `fsType`: the filesystem the kubelet formats the disk with (the plugin's default when absent);
 * - `type`: the provider's disk type, passed through (`standard` when absent);
 * - `multiAttach`: `"true"` makes a shared disk that also serves ReadWriteMany claims.
 */
import type { VolumeNodeAffinity } from "kubernetes-types/core/v1.js";
import type { PersistentVolume } from "../../api/objects.ts";
import { requestedStorage } from "../../api/storage/pv-helpers.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { simDiskDriverName, simDiskIdOption, simDiskPluginName } from "../../volume/plugins/simdisk/sim-disk-source.ts";
import { zoneLabel } from "./annotations.ts";
import { type DiskProvider, isDiskStillAttachedError } from "./disk-provider.ts";
import {
  DeletedVolumeInUseError,
  type ProvisionedVolume,
  type Provisioner,
  type ProvisionRequest,
} from "./provisioner.ts";
import { chooseZone } from "./zone-selection.ts";

const bytesPerGiB = 1n << 30n;
const defaultDiskType = "standard";
const knownParameters = new Set(["fsType", "type", "multiAttach"]);
const exclusiveAccessModes = ["ReadWriteOnce", "ReadOnlyMany"];
const sharedAccessModes = [...exclusiveAccessModes, "ReadWriteMany"];

interface SimDiskParameters {
  fsType?: string;
  diskType: string;
  multiAttach: boolean;
}

/** The class parameters, refusing names the provisioner does not know (as in-tree plugins do). */
function parseSimDiskParameters(parameters: Readonly<Record<string, string>> | undefined): SimDiskParameters {
  const given = parameters ?? {};
  for (const name of Object.keys(given)) {
    if (!knownParameters.has(name)) throw new Error(`invalid option "${name}" for volume plugin ${simDiskPluginName}`);
  }
  const multiAttach = given.multiAttach ?? "false";
  if (multiAttach !== "true" && multiAttach !== "false") {
    throw new Error(
      `invalid value "${multiAttach}" for option "multiAttach" of ${simDiskPluginName}: use "true" or "false"`,
    );
  }
  return {
    ...(given.fsType ? { fsType: given.fsType } : {}),
    diskType: given.type || defaultDiskType,
    multiAttach: multiAttach === "true",
  };
}

/** Kubernetes' RoundUpToGiB: the request in whole GiB, at least 1. */
export function roundUpToGiB(bytes: bigint): bigint {
  const gib = (bytes + bytesPerGiB - 1n) / bytesPerGiB;
  return gib > 0n ? gib : 1n;
}

function zoneAffinity(zone: string): VolumeNodeAffinity {
  return {
    required: { nodeSelectorTerms: [{ matchExpressions: [{ key: zoneLabel, operator: "In", values: [zone] }] }] },
  };
}

export function simDiskIdOf(volume: PersistentVolume): string | undefined {
  const source = volume.spec?.flexVolume;
  return source?.driver === simDiskDriverName ? source.options?.[simDiskIdOption] : undefined;
}

export class SimDiskProvisioner implements Provisioner {
  readonly name = simDiskPluginName;
  readonly supportsMountOptions = true;
  private readonly disks: DiskProvider;

  constructor(disks: DiskProvider) {
    this.disks = disks;
  }

  handles(volume: PersistentVolume): boolean {
    return simDiskIdOf(volume) !== undefined;
  }

  async provision(request: ProvisionRequest): Promise<ProvisionedVolume> {
    const parameters = parseSimDiskParameters(request.storageClass.parameters);
    checkAccessModes(request.claim.spec?.accessModes ?? [], parameters.multiAttach);
    const zone = chooseZone({
      claimName: request.claim.metadata?.name ?? "",
      ...(request.selectedNode === undefined ? {} : { selectedNode: request.selectedNode }),
      ...(request.storageClass.allowedTopologies ? { allowedTopologies: request.storageClass.allowedTopologies } : {}),
    });
    const sizeGiB = roundUpToGiB(requestedStorage(request.claim).toBytes());
    const diskId = request.pvName;
    // A retry after a crash finds the disk of the earlier attempt and uses it.
    if (!this.disks.has(diskId)) {
      await this.disks.createDisk(diskId, Number(sizeGiB * bytesPerGiB), {
        ...(zone === undefined ? {} : { zone }),
        multiAttach: parameters.multiAttach,
        diskType: parameters.diskType,
      });
    }
    return {
      source: {
        flexVolume: {
          driver: simDiskDriverName,
          ...(parameters.fsType === undefined ? {} : { fsType: parameters.fsType }),
          options: { [simDiskIdOption]: diskId },
        },
      },
      capacity: `${sizeGiB}Gi`,
      ...(zone === undefined ? {} : { nodeAffinity: zoneAffinity(zone), labels: { [zoneLabel]: zone } }),
    };
  }

  async delete(volume: PersistentVolume): Promise<void> {
    const diskId = simDiskIdOf(volume);
    if (diskId === undefined || !this.disks.has(diskId)) return;
    try {
      await this.disks.deleteDisk(diskId);
    } catch (error) {
      if (isDiskStillAttachedError(error)) throw new DeletedVolumeInUseError(errorMessage(error));
      throw error;
    }
  }
}

function checkAccessModes(requested: readonly string[], multiAttach: boolean): void {
  const supported = multiAttach ? sharedAccessModes : exclusiveAccessModes;
  if (requested.every((mode) => supported.includes(mode))) return;
  throw new Error(
    `invalid AccessModes [${requested.join(" ")}]: only AccessModes [${supported.join(" ")}] are supported`,
  );
}
