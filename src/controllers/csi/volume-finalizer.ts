/**
 * Keeps the provisioner's finalizer in step with a provisioned PV's reclaim policy (the library's
 * handleProtectionFinalizer): while the policy is Delete the PV keeps the finalizer, so the PV
 * object cannot disappear before its storage asset; changed to Retain or Recycle, the finalizer
 * goes, since this provisioner will never delete that asset.
 */
import type { PersistentVolume } from "../../api/objects.ts";
import { provisionerVolumeFinalizer } from "./constants.ts";
import { isProvisionedBy } from "./delete-volume.ts";
import { finalizersWith, finalizersWithout, hasFinalizer } from "./finalizers.ts";
import type { ProvisionerState } from "./provisioner-state.ts";

type FinalizerChange = "add" | "remove" | undefined;

function neededChange(state: ProvisionerState, volume: PersistentVolume): FinalizerChange {
  if (!isProvisionedBy(state, volume)) return undefined;
  const policy = volume.spec?.persistentVolumeReclaimPolicy;
  const present = hasFinalizer(volume, provisionerVolumeFinalizer);
  if ((policy === "Retain" || policy === "Recycle") && present) return "remove";
  if (policy === "Delete" && !present && !volume.metadata?.deletionTimestamp) return "add";
  return undefined;
}

export async function syncProvisionerFinalizer(state: ProvisionerState, volume: PersistentVolume): Promise<void> {
  const change = neededChange(state, volume);
  if (change === undefined) return;
  await state.client.persistentVolumes.mutate("", volume.metadata?.name ?? "", (draft) => {
    if (neededChange(state, draft) !== change) return;
    const finalizers =
      change === "add"
        ? finalizersWith(draft, provisionerVolumeFinalizer)
        : finalizersWithout(draft, provisionerVolumeFinalizer);
    draft.metadata = { ...draft.metadata, finalizers };
  });
}
