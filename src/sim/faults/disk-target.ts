/**
 * How disk faults name their disk: by the cloud disk id (`disk: pvc-1234…`), or by the claim whose
 * provisioned volume it is (`claim: data` or `claim: shop/data`), since a scenario cannot know a
 * provisioned disk's id before it runs.
 */
import { isNotFound } from "../../api/errors.ts";
import type { Cluster } from "../../cmd/cluster.ts";
import { defaultNamespace } from "../../cmd/constants.ts";
import { simDiskIdOf } from "../../controllers/persistentvolume/sim-disk-provisioner.ts";
import type { FaultParam } from "./fault.ts";
import type { FaultArgs } from "./fault-args.ts";
import { requireDisk } from "./fault-targets.ts";

export const diskTargetParams: readonly FaultParam[] = [
  {
    name: "disk",
    type: "string",
    required: false,
    description: "The cloud disk's id (the sim-disk provisioner names a disk after its PV); or give `claim`.",
  },
  {
    name: "claim",
    type: "string",
    required: false,
    description: "`name` or `namespace/name` of a bound claim whose volume is a sim-disk; or give `disk`.",
  },
];

/** The disk id the parameters name; exactly one of `disk` and `claim` must be given. */
export async function resolveDiskId(cluster: Cluster, args: FaultArgs): Promise<string> {
  const disk = args.optionalString("disk");
  const claim = args.optionalString("claim");
  if ((disk === undefined) === (claim === undefined)) {
    throw args.error('give exactly one of the parameters "disk" and "claim"');
  }
  const diskId = disk ?? (await diskOfClaim(cluster, args, claim ?? ""));
  requireDisk(cluster, args, diskId);
  return diskId;
}

async function diskOfClaim(cluster: Cluster, args: FaultArgs, claimRef: string): Promise<string> {
  const [namespace, name] = claimRef.includes("/") ? claimRef.split("/", 2) : [defaultNamespace, claimRef];
  const claim = await cluster.tryGet("PersistentVolumeClaim", namespace ?? "", name ?? "");
  if (claim === undefined) throw args.error(`parameter "claim": no claim ${namespace}/${name}`);
  const volumeName = claim.spec?.volumeName;
  if (volumeName === undefined || volumeName === "") {
    throw args.error(`parameter "claim": claim ${namespace}/${name} is not bound to a volume yet`);
  }
  try {
    const diskId = simDiskIdOf(await cluster.get("PersistentVolume", "", volumeName));
    if (diskId !== undefined) return diskId;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  throw args.error(`parameter "claim": the volume ${volumeName} of claim ${namespace}/${name} is not a sim-disk`);
}
