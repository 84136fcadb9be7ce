/**
 * What the external-provisioner's sync functions share: the driver and what it can do, the API,
 * the caches, the recorder, and the provisioning bookkeeping that outlives one sync.
 */
import type { Client } from "../../api/client/client.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Indexer } from "../../api/informer/indexer.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type {
  CSINode,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
  VolumeAttachment,
} from "../../api/objects.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import type { DriverInfo } from "./driver-startup.ts";

/** How the provisioner treats topology (external-provisioner flags and feature gates). */
export interface ProvisionerTopologyOptions {
  /** `--feature-gates=Topology=true`: use the driver's VOLUME_ACCESSIBILITY_CONSTRAINTS. */
  topology: boolean;
  /** `--strict-topology`. */
  strictTopology: boolean;
  /** `--immediate-topology` (default true). */
  immediateTopology: boolean;
}

export interface ProvisionerState {
  driverName: string;
  /** `source.component` of its events: `<driver>_<host>_<uuid>`. */
  identity: string;
  /** `storage.kubernetes.io/csiProvisionerIdentity` on the volumes it creates. */
  volumeIdentity: string;
  driver: CsiControllerClient;
  driverInfo: DriverInfo;
  client: Client;
  clock: Clock;
  logger: Logger;
  recorder: EventRecorder;
  /** `--timeout`: the longest one CSI call may take. */
  callTimeoutMs: number;
  /** `--default-fstype`: the filesystem type when the class names none. */
  defaultFsType: string;
  topology: ProvisionerTopologyOptions;
  classes: Lister<StorageClass>;
  volumes: Lister<PersistentVolume>;
  nodes: Lister<Node>;
  csiNodes: Lister<CSINode>;
  attachments: Indexer<VolumeAttachment>;
  /** Claims whose volume the driver may still be creating, by uid (the library's claimsInProgress). */
  claimsInProgress: Map<string, PersistentVolumeClaim>;
  /** Volumes the driver created whose PV object could not be saved yet, by claim uid. */
  unsavedVolumes: Map<string, PersistentVolume>;
}

/** The driver can tell where its volumes are reachable, and the Topology feature is on. */
export function supportsTopology(state: ProvisionerState): boolean {
  return state.topology.topology && state.driverInfo.pluginCapabilities.has("VOLUME_ACCESSIBILITY_CONSTRAINTS");
}

export function supportsSingleNodeMultiWriter(state: ProvisionerState): boolean {
  return state.driverInfo.controllerCapabilities.has("SINGLE_NODE_MULTI_WRITER");
}
