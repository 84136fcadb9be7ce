/**
 * What the external-attacher's handlers share: the driver and its capabilities, the API, the
 * caches and the finalizer name.
 */
import type { Client } from "../../api/client/client.ts";
import type { Indexer } from "../../api/informer/indexer.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { CSINode, PersistentVolume, VolumeAttachment } from "../../api/objects.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { CsiControllerClient } from "./driver-connection.ts";

export interface AttacherState {
  driverName: string;
  /** `external-attacher/<sanitized driver>` on VolumeAttachments and PersistentVolumes. */
  finalizer: string;
  driver: CsiControllerClient;
  client: Client;
  clock: Clock;
  logger: Logger;
  /** `--timeout`: the longest one CSI call may take. */
  callTimeoutMs: number;
  /** The driver has SINGLE_NODE_MULTI_WRITER: finer single-node access modes. */
  singleNodeMultiWriter: boolean;
  /** The driver has PUBLISH_READONLY: a read-only PV is published read-only. */
  publishReadOnly: boolean;
  volumes: Lister<PersistentVolume>;
  csiNodes: Lister<CSINode>;
  /** VolumeAttachments, indexed by the PV they attach. */
  attachments: Indexer<VolumeAttachment>;
}

/**
 * How the attacher handles one driver's objects: the CSI handler (ControllerPublish/Unpublish) or
 * the trivial one for drivers that need no attaching. A handler throws to have the object retried
 * with backoff.
 */
export interface AttachHandler {
  syncVolumeAttachment(attachment: VolumeAttachment): Promise<void>;
  syncPersistentVolume(volume: PersistentVolume): Promise<void>;
}
