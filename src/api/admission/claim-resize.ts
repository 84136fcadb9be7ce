/**
 * PersistentVolumeClaimResize: a bound claim's storage request may grow only when its class
 * allows expansion (`allowVolumeExpansion: true`); otherwise 403 with Kubernetes' words. It judges
 * writes to the claim itself, not its status. A shrink, and any change to an unbound claim's
 * request, are refused earlier by validation.
 */
import type { KObject, PersistentVolumeClaim, StorageClass } from "../objects.ts";
import { parseQuantity } from "../quantity.ts";
import { type ResourceType, resourceForKind } from "../resources.ts";
import { claimClassName } from "../storage/pv-helpers.ts";
import type { Store } from "../store/store.ts";
import { admissionForbidden } from "./admission-errors.ts";

const resizeRefusedMessage =
  "only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize";

function storageRequest(claim: PersistentVolumeClaim): string | undefined {
  const requests = claim.spec?.resources?.requests;
  return requests === undefined ? undefined : requests.storage;
}

function grows(claim: PersistentVolumeClaim, old: PersistentVolumeClaim): boolean {
  const before = storageRequest(old);
  const after = storageRequest(claim);
  if (before === undefined || after === undefined) return false;
  try {
    return parseQuantity(after).compare(parseQuantity(before)) > 0;
  } catch {
    // A malformed quantity is validation's to report, with its field path.
    return false;
  }
}

async function classAllowsExpansion(store: Store, className: string): Promise<boolean> {
  const type = resourceForKind("StorageClass");
  if (type === undefined || className === "") return false;
  try {
    const storageClass = await store.get<StorageClass & KObject>(type, "", className);
    return storageClass.allowVolumeExpansion === true;
  } catch {
    // A class that cannot be read does not allow expansion, as the plugin's lister miss.
    return false;
  }
}

export async function admitClaimResize(store: Store, type: ResourceType, next: KObject): Promise<void> {
  const claim = next as PersistentVolumeClaim;
  const old = await store.get<PersistentVolumeClaim & KObject>(
    type,
    claim.metadata?.namespace ?? "",
    claim.metadata?.name ?? "",
  );
  if (old.status?.phase !== "Bound" || !grows(claim, old)) return;
  const className = claimClassName(claim);
  if (className !== claimClassName(old) || !(await classAllowsExpansion(store, className))) {
    throw admissionForbidden(type, claim.metadata?.name ?? "", resizeRefusedMessage);
  }
}
