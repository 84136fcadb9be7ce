/**
 * What the PV controller's sync functions share: the API, its own versioned caches, the informer
 * listers it reads, the running long operations, the provisioners, and the two work queues. The
 * sync functions are plain functions over this state, one file per concern, as pv_controller.go's
 * methods are one struct's.
 */
import type { Client } from "../../api/client/client.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Indexer } from "../../api/informer/indexer.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { Node, PersistentVolumeClaim, Pod, StorageClass } from "../../api/objects.ts";
import type { Timers } from "../../api/timers.ts";
import type { Clock } from "../../runtime/clock.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { OperationMap } from "./operation-map.ts";
import type { ProvisionerRegistry } from "./provisioner.ts";
import type { VersionedCache } from "./versioned-cache.ts";
import type { VolumeIndex } from "./volume-index.ts";

export interface PvControllerState {
  readonly client: Client;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timers: Timers;
  readonly recorder: EventRecorder;
  /** Last known claims, including the controller's own writes before the informer delivers them. */
  readonly claims: VersionedCache<PersistentVolumeClaim>;
  /** Last known volumes, indexed by access modes, including the controller's own writes. */
  readonly volumes: VolumeIndex;
  readonly claimLister: Lister<PersistentVolumeClaim>;
  readonly classLister: Lister<StorageClass>;
  readonly nodeLister: Lister<Node>;
  /** The pod informer's cache with the pods-by-claim index. */
  readonly pods: Indexer<Pod>;
  readonly operations: OperationMap;
  readonly provisioners: ProvisionerRegistry;
  enqueueClaim(claimKey: string): void;
  enqueueVolume(volumeName: string): void;
}
