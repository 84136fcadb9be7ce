/**
 * external-provisioner's getVolumeContentSource: a claim's `dataSourceRef` (else `dataSource`)
 * naming a VolumeSnapshot becomes CreateVolume's snapshot source — once the snapshot is bound to
 * its content, ready, cut by this driver and no bigger than the claim — and one naming a
 * PersistentVolumeClaim becomes a volume source (a clone) — once that claim is bound, in a class,
 * no bigger than the new claim, and its volume is this driver's. Every refusal is upstream's text,
 * which the provisioner reports in its ProvisioningFailed event and retries.
 */
import type { TypedLocalObjectReference } from "kubernetes-types/core/v1.js";
import { isNotFound } from "../../api/errors.ts";
import type { PersistentVolumeClaim, StorageClass, VolumeSnapshot, VolumeSnapshotContent } from "../../api/objects.ts";
import { parseQuantity } from "../../api/quantity.ts";
import { requestedStorage } from "../../api/storage/pv-helpers.ts";
import type { CreateVolumeRequest } from "../../csi/proto/types.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { ProvisionerState } from "./provisioner-state.ts";

type ContentSource = CreateVolumeRequest["volumeContentSource"];

const snapshotGroup = "snapshot.storage.k8s.io";
/** Set on a snapshot while a claim is being restored from it (the snapshot controller keeps it). */
export const snapshotSourceProtectionFinalizer = "snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection";

function snapshotNotBound(name: string): Error {
  return new Error(`snapshot ${name} not bound`);
}

/** The claim's data source, `dataSourceRef` first as the provisioner reads it. */
export function claimDataSource(claim: PersistentVolumeClaim): TypedLocalObjectReference | undefined {
  return claim.spec?.dataSourceRef ?? claim.spec?.dataSource ?? undefined;
}

export function isSnapshotSource(source: TypedLocalObjectReference): boolean {
  return source.kind === "VolumeSnapshot" && source.apiGroup === snapshotGroup;
}

export function isClaimSource(source: TypedLocalObjectReference): boolean {
  return source.kind === "PersistentVolumeClaim" && (source.apiGroup ?? "") === "";
}

export async function volumeContentSourceFor(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
): Promise<ContentSource> {
  const source = claimDataSource(claim);
  if (source === undefined) return null;
  if (isSnapshotSource(source)) return snapshotSource(state, claim, storageClass, source.name);
  if (isClaimSource(source)) return claimSource(state, claim, storageClass, source.name);
  throw new Error(
    `the claim's data source (${source.kind} ${source.name}) is not supported: ` +
      "this provisioner restores VolumeSnapshots and clones PersistentVolumeClaims only",
  );
}

async function snapshotSource(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  name: string,
): Promise<ContentSource> {
  const namespace = claim.metadata?.namespace ?? "";
  let snapshot: VolumeSnapshot;
  try {
    snapshot = await state.client.resource("VolumeSnapshot").get(namespace, name);
  } catch (error) {
    throw new Error(`error getting snapshot ${name} from api server: ${errorMessage(error)}`);
  }
  const finalizers = snapshot.metadata?.finalizers ?? [];
  if (snapshot.metadata?.deletionTimestamp != null && !finalizers.includes(snapshotSourceProtectionFinalizer)) {
    throw new Error(`snapshot ${name} is being deleted`);
  }
  const contentName = snapshot.status?.boundVolumeSnapshotContentName;
  if (contentName === undefined) throw snapshotNotBound(name);
  let content: VolumeSnapshotContent;
  try {
    content = await state.client.resource("VolumeSnapshotContent").get("", contentName);
  } catch (error) {
    if (isNotFound(error)) throw snapshotNotBound(name);
    throw error;
  }
  const ref = content.spec.volumeSnapshotRef;
  const boundHere = ref.uid === snapshot.metadata?.uid && ref.namespace === namespace && ref.name === name;
  if (!boundHere || content.spec.driver !== storageClass.provisioner) throw snapshotNotBound(name);
  if (snapshot.status?.readyToUse !== true) throw new Error(`snapshot ${name} is not Ready`);
  const handle = content.status?.snapshotHandle;
  if (handle === undefined) throw new Error(`snapshot handle ${name} is not available`);
  const restoreSize = snapshot.status?.restoreSize;
  if (restoreSize !== undefined) {
    const requestedBytes = Number(requestedStorage(claim).toBytes());
    const restoreBytes = Number(parseQuantity(restoreSize).toBytes());
    if (requestedBytes < restoreBytes) {
      throw new Error(
        `requested volume size ${requestedBytes} is less than the size ${restoreBytes} for the source snapshot ${name}`,
      );
    }
  }
  return { snapshot: { snapshotId: handle } };
}

const claimNotBoundMessage = "claim in dataSource not bound or invalid";

async function claimSource(
  state: ProvisionerState,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  name: string,
): Promise<ContentSource> {
  const namespace = claim.metadata?.namespace ?? "";
  let source: PersistentVolumeClaim;
  try {
    source = await state.client.persistentVolumeClaims.get(namespace, name);
  } catch (error) {
    throw new Error(`error getting PVC ${name} (namespace "${namespace}") from api server: ${errorMessage(error)}`);
  }
  if (source.status?.phase !== "Bound") {
    throw new Error(
      `the PVC DataSource ${name} must have a status of Bound.  Got ${JSON.stringify(source.status ?? {})}`,
    );
  }
  if (source.metadata?.deletionTimestamp != null)
    throw new Error(`the PVC DataSource ${name} is currently being deleted`);
  if (source.spec?.storageClassName == null) throw new Error(`the source PVC (${name}) storageclass cannot be empty`);
  if (claim.spec?.storageClassName == null) {
    throw new Error(`the requested PVC (${claim.metadata?.name ?? ""}) storageclass cannot be empty`);
  }
  const requestedBytes = Number(requestedStorage(claim).toBytes());
  const sourceBytes = Number(requestedStorage(source).toBytes());
  if (requestedBytes < sourceBytes) {
    throw new Error(
      `error, new PVC request must be greater than or equal in size to the specified PVC data source, requested ${requestedBytes} but source is ${sourceBytes}`,
    );
  }
  const volumeName = source.spec?.volumeName ?? "";
  if (volumeName === "") throw new Error(`volume name is empty in source PVC ${name}`);
  const volume = state.volumes.get("", volumeName);
  const csi = volume?.spec?.csi;
  const claimRef = volume?.spec?.claimRef;
  const boundToSource =
    claimRef?.uid === source.metadata?.uid && claimRef?.namespace === namespace && claimRef?.name === name;
  if (
    csi === undefined ||
    csi.driver !== storageClass.provisioner ||
    !boundToSource ||
    volume?.status?.phase !== "Bound"
  ) {
    throw new Error(claimNotBoundMessage);
  }
  const wantsBlock = claim.spec?.volumeMode === "Block";
  const sourceIsBlock = volume?.spec?.volumeMode === "Block";
  if (wantsBlock !== sourceIsBlock) {
    throw new Error(
      `the source PVC and destination PVCs must have the same volume mode for cloning.  Source is ${sourceIsBlock ? "Block" : "Filesystem"}, but new PVC requested ${wantsBlock ? "Block" : "Filesystem"}`,
    );
  }
  return { volume: { volumeId: csi.volumeHandle } };
}
