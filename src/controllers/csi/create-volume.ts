/**
 * external-provisioner's Provision: turns a claim and its class into a CreateVolume call and the
 * answer into a PersistentVolume. Every failure is a ProvisioningError saying whether the driver
 * may still be working on the volume (provisioning-state.ts).
 */
import type { SecretReference } from "kubernetes-types/core/v1.js";
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { requestedStorage } from "../../api/storage/pv-helpers.ts";
import type { CreateVolumeRequest, TopologyRequirement, Volume } from "../../csi/proto/types.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { addCloneFinalizer } from "./cloning-protection.ts";
import { claimDataSource, volumeContentSourceFor } from "./content-source.ts";
import { callWithTimeout } from "./driver-connection.ts";
import { newProvisionedVolume, type VolumeSecretReferences } from "./provisioned-volume.ts";
import { type ProvisionerState, supportsSingleNodeMultiWriter, supportsTopology } from "./provisioner-state.ts";
import { ProvisioningError, type ProvisioningState, stateAfterCreateVolumeError } from "./provisioning-state.ts";
import { readSecretData } from "./secret-data.ts";
import {
  controllerExpandSecretKeys,
  controllerPublishSecretKeys,
  nodeExpandSecretKeys,
  nodePublishSecretKeys,
  nodeStageSecretKeys,
  provisionerSecretKeys,
  type SecretParameterKeys,
  secretReferenceFor,
} from "./secret-references.ts";
import { driverParameters, fsTypeFromParameters } from "./storage-class-parameters.ts";
import { accessibilityRequirements } from "./topology.ts";
import { capabilitiesForClaim } from "./volume-capability.ts";

interface ProvisionRequest {
  pvName: string;
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  selectedNode: Node | undefined;
}

/** Runs `step`; a plain failure becomes a ProvisioningError in `state`. */
async function inState<T>(state: ProvisioningState, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ProvisioningError) throw error;
    throw new ProvisioningError(state, errorMessage(error));
  }
}

/** Creates the volume on the driver and returns its PV (not yet saved). */
export async function provisionWithDriver(
  state: ProvisionerState,
  request: ProvisionRequest,
): Promise<PersistentVolume> {
  const prepared = await inState("Finished", () => prepareRequest(state, request));
  const mayReschedule = supportsTopology(state) && request.selectedNode !== undefined;
  const accessibility = await inState(mayReschedule ? "Reschedule" : "Finished", () =>
    supportsTopology(state) ? accessibilityFor(state, request) : null,
  );
  const contentSource = await inState("Finished", () =>
    volumeContentSourceFor(state, request.claim, request.storageClass),
  );
  const cloneSource = claimDataSource(request.claim);
  if (contentSource?.volume != null && cloneSource !== undefined) {
    const namespace = request.claim.metadata?.namespace ?? "";
    await inState("NoChange", () => addCloneFinalizer(state, namespace, cloneSource.name));
  }
  const credentials = await inState("NoChange", () => credentialsFor(state, request));
  const createRequest: CreateVolumeRequest = {
    ...prepared.createRequest,
    volumeContentSource: contentSource,
    secrets: credentials,
    accessibilityRequirements: accessibility,
  };
  const created = await createVolume(state, createRequest, mayReschedule);
  const capacityBytes = await checkCapacity(state, created, prepared.requiredBytes);
  return newProvisionedVolume({
    pvName: request.pvName,
    claim: request.claim,
    storageClass: request.storageClass,
    driverName: state.driverName,
    provisionerIdentity: state.volumeIdentity,
    created,
    fsType: prepared.fsType,
    capacityBytes,
    secrets: prepared.secrets,
    withNodeAffinity: supportsTopology(state),
  });
}

interface PreparedRequest {
  createRequest: Omit<CreateVolumeRequest, "secrets" | "accessibilityRequirements">;
  fsType: string;
  requiredBytes: number;
  secrets: VolumeSecretReferences;
}

function prepareRequest(state: ProvisionerState, request: ProvisionRequest): PreparedRequest {
  const { claim, storageClass, pvName } = request;
  checkClaimIsSupported(claim);
  const parameters = storageClass.parameters ?? {};
  const fsType = fsTypeFromParameters(parameters, state.defaultFsType);
  const requiredBytes = Number(requestedStorage(claim).toBytes());
  const mountOptions = storageClass.mountOptions ?? [];
  const secretRef = (keys: SecretParameterKeys) => secretReferenceFor(keys, parameters, pvName, claim);
  const secrets = pruned({
    controllerPublish: secretRef(controllerPublishSecretKeys),
    nodeStage: secretRef(nodeStageSecretKeys),
    nodePublish: secretRef(nodePublishSecretKeys),
    controllerExpand: secretRef(controllerExpandSecretKeys),
    nodeExpand: secretRef(nodeExpandSecretKeys),
  });
  const createRequest = {
    name: pvName,
    capacityRange: { requiredBytes, limitBytes: 0 },
    volumeCapabilities: capabilitiesForClaim(
      claim.spec ?? {},
      fsType,
      mountOptions,
      supportsSingleNodeMultiWriter(state),
    ),
    parameters: driverParameters(parameters),
    volumeContentSource: null,
    mutableParameters: {},
  };
  return { createRequest, fsType, requiredBytes, secrets };
}

function pruned(secrets: Record<keyof VolumeSecretReferences, SecretReference | undefined>): VolumeSecretReferences {
  return Object.fromEntries(Object.entries(secrets).filter(([, reference]) => reference !== undefined));
}

/** What this provisioner cannot honour is refused rather than silently ignored. */
function checkClaimIsSupported(claim: PersistentVolumeClaim): void {
  if (claim.spec?.selector != null) throw new Error("claim Selector is not supported");
}

function accessibilityFor(state: ProvisionerState, request: ProvisionRequest): TopologyRequirement | null {
  try {
    return accessibilityRequirements({
      driverName: state.driverName,
      claimName: request.claim.metadata?.name ?? "",
      allowedTopologies: request.storageClass.allowedTopologies ?? [],
      selectedNode: request.selectedNode,
      strictTopology: state.topology.strictTopology,
      immediateTopology: state.topology.immediateTopology,
      csiNodes: state.csiNodes,
      nodes: state.nodes,
    });
  } catch (error) {
    throw new Error(`error generating accessibility requirements: ${errorMessage(error)}`);
  }
}

/** The provisioner secret's data, sent as CreateVolume's `secrets`. */
async function credentialsFor(state: ProvisionerState, request: ProvisionRequest): Promise<Record<string, string>> {
  const parameters = request.storageClass.parameters ?? {};
  const reference = secretReferenceFor(provisionerSecretKeys, parameters, request.pvName, request.claim);
  if (reference === undefined) return {};
  const namespace = reference.namespace ?? "";
  const name = reference.name ?? "";
  try {
    return await readSecretData(state.client, { namespace, name });
  } catch (error) {
    throw new Error(`error getting secret ${name} in namespace ${namespace}: ${errorMessage(error)}`);
  }
}

async function createVolume(
  state: ProvisionerState,
  request: CreateVolumeRequest,
  mayReschedule: boolean,
): Promise<Volume> {
  let volume: Volume | null;
  try {
    const response = await callWithTimeout(state.clock, state.callTimeoutMs, () => state.driver.createVolume(request));
    volume = response.volume;
  } catch (error) {
    throw new ProvisioningError(stateAfterCreateVolumeError(error, mayReschedule), errorMessage(error));
  }
  if (volume === null || volume.volumeId === "") {
    throw new ProvisioningError("Finished", "the CSI driver answered CreateVolume without a volume_id");
  }
  return volume;
}

/**
 * The size the PV records: the driver's, or the request when the driver reports 0 (unknown). A
 * volume smaller than asked is deleted again, so the claim is not bound to too little space.
 */
async function checkCapacity(state: ProvisionerState, created: Volume, requiredBytes: number): Promise<number> {
  const capacityBytes = created.capacityBytes === 0 ? requiredBytes : created.capacityBytes;
  if (capacityBytes >= requiredBytes) return capacityBytes;
  const tooSmall = `created volume capacity ${capacityBytes} less than requested capacity ${requiredBytes}`;
  try {
    await callWithTimeout(state.clock, state.callTimeoutMs, () =>
      state.driver.deleteVolume({ volumeId: created.volumeId, secrets: {} }),
    );
  } catch (error) {
    throw new ProvisioningError(
      "Finished",
      `${tooSmall}. Cleanup of volume ${created.volumeId} failed, volume is orphaned: ${errorMessage(error)}`,
    );
  }
  throw new ProvisioningError("Finished", tooSmall);
}
