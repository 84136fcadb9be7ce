/**
 * The PersistentVolume controller (pv_controller_base.go): binds claims to volumes, provisions
 * volumes for claims, and reclaims volumes whose claims are gone.
 *
 * Two work queues, claims and volumes, with exactly one worker each: syncClaim is not re-entrant.
 * Informer events only enqueue keys; the worker stores the object in the controller's own cache
 * (ignoring versions older than the controller's own writes) and syncs it. A failed sync is not
 * retried with backoff: the full resync every 15 s (`--pvclaimbinder-sync-period`) visits every
 * claim and volume again. Long operations (provision, delete, recycle) run in the OperationMap.
 */

import type { ApiObject } from "../../api/client/client.ts";
import type { PersistentVolumeControllerDebugState } from "../../api/debug/debug-state.ts";
import { isConflict } from "../../api/errors.ts";
import type { HandlerRegistration, ResourceEventHandler, SharedInformer } from "../../api/informer/shared-informer.ts";
import { objectKey, type PersistentVolume, type PersistentVolumeClaim, splitObjectKey } from "../../api/objects.ts";
import type { Timer } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import { type Controller, type ControllerContext, recorderFor } from "../controller-context.ts";
import { claimKeyOf, volumeNameOf } from "./annotations.ts";
import { ensurePodsByClaimIndex } from "./claim-users.ts";
import type { PvControllerState } from "./controller-state.ts";
import { persistentVolumeControllerDebugState } from "./debug-state.ts";
import { pvControllerComponent } from "./events.ts";
import { OperationMap } from "./operation-map.ts";
import { type Provisioner, ProvisionerRegistry } from "./provisioner.ts";
import { syncClaim } from "./sync-claim.ts";
import { syncVolume } from "./sync-volume.ts";
import { VersionedCache } from "./versioned-cache.ts";
import { VolumeIndex } from "./volume-index.ts";

/** syncClaim and syncVolume must never run twice at once for the same kind. */
const workersPerQueue = 1;

interface PersistentVolumeControllerOptions {
  /** In-tree provisioners by the names StorageClasses use (e.g. a SimDiskProvisioner). */
  provisioners?: readonly Provisioner[];
}

/** Informer events only name the object; the worker reads it from the cache when its turn comes. */
function enqueueingHandler<T extends ApiObject>(queue: WorkQueue<string>): ResourceEventHandler<T> {
  const add = (object: T) => queue.add(objectKey(object));
  return { onAdd: add, onUpdate: (_old, object) => add(object), onDelete: add };
}

interface WatchedInformers {
  volumes: SharedInformer<PersistentVolume>;
  claims: SharedInformer<PersistentVolumeClaim>;
  synced: Array<() => Promise<boolean>>;
}

export class PersistentVolumeController implements Controller {
  readonly name = pvControllerComponent;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly informers: WatchedInformers;
  private readonly state: PvControllerState;
  private readonly claimQueue: WorkQueue<string>;
  private readonly volumeQueue: WorkQueue<string>;
  private readonly registrations: HandlerRegistration[] = [];
  private resyncTimer: Timer | undefined;
  private running: Promise<void> | undefined;

  constructor(context: ControllerContext, options: PersistentVolumeControllerOptions = {}) {
    this.context = context;
    this.logger = context.logger.with({ component: pvControllerComponent });
    const queueOptions = {
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter<string>(context.clock),
      ...(context.metrics === undefined ? {} : { metrics: context.metrics }),
    };
    this.claimQueue = new WorkQueue({ name: "claims", ...queueOptions });
    this.volumeQueue = new WorkQueue({ name: "volumes", ...queueOptions });
    const factory = context.informers;
    const pods = factory.informerFor("Pod");
    ensurePodsByClaimIndex(pods);
    const classes = factory.informerFor("StorageClass");
    const nodes = factory.informerFor("Node");
    this.informers = {
      volumes: factory.informerFor("PersistentVolume"),
      claims: factory.informerFor("PersistentVolumeClaim"),
      synced: [pods, classes, nodes].map((informer) => () => informer.waitForSync()),
    };
    this.state = {
      client: context.client,
      clock: context.clock,
      logger: this.logger,
      timers: context.timers,
      recorder: recorderFor(context, pvControllerComponent),
      claims: new VersionedCache<PersistentVolumeClaim>(),
      volumes: new VolumeIndex(),
      claimLister: this.informers.claims.lister,
      classLister: classes.lister,
      nodeLister: nodes.lister,
      pods: pods.indexer,
      operations: new OperationMap(context.clock, this.logger),
      provisioners: new ProvisionerRegistry(options.provisioners ?? []),
      enqueueClaim: (key) => this.claimQueue.add(key),
      enqueueVolume: (name) => this.volumeQueue.add(name),
    };
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    this.registrations.push(
      this.informers.volumes.addEventHandler(enqueueingHandler(this.volumeQueue)),
      this.informers.claims.addEventHandler(enqueueingHandler(this.claimQueue)),
    );
    this.running = this.run();
  }

  /** The claims still to bind and the running or backing-off operations (the debug endpoint). */
  debugState(): PersistentVolumeControllerDebugState {
    return persistentVolumeControllerDebugState({
      nowMs: this.context.clock.now(),
      claims: this.state.claims.values(),
      operations: this.state.operations,
    });
  }

  async stop(): Promise<void> {
    this.resyncTimer?.cancel();
    for (const registration of this.registrations) registration.remove();
    this.claimQueue.shutDown();
    this.volumeQueue.shutDown();
    await this.running;
  }

  private async run(): Promise<void> {
    const waits = [this.informers.volumes, this.informers.claims].map((informer) => informer.waitForSync());
    const synced = await Promise.all([...waits, ...this.informers.synced.map((wait) => wait())]);
    if (!synced.every(Boolean)) return;
    this.initializeCaches();
    this.resyncTimer = this.context.clock.every(this.context.timers.pvControllerResyncPeriodMs, () => this.resync());
    const report = (key: string, error: unknown) =>
      this.logger.error("sync failed", { key, error: errorMessage(error) });
    await Promise.all([
      runWorkers(this.claimQueue, workersPerQueue, (key) => this.processClaim(key), report),
      runWorkers(this.volumeQueue, workersPerQueue, (key) => this.processVolume(key), report),
    ]);
  }

  private initializeCaches(): void {
    for (const volume of this.informers.volumes.lister.list()) this.state.volumes.storeIfNotOlder(volume);
    for (const claim of this.informers.claims.lister.list()) this.state.claims.storeIfNotOlder(claim);
  }

  /** Every claim and volume once more, so whatever a failed or skipped sync left undone is retried. */
  private resync(): void {
    for (const claim of this.informers.claims.lister.list()) this.claimQueue.add(claimKeyOf(claim));
    for (const volume of this.informers.volumes.lister.list()) this.volumeQueue.add(volumeNameOf(volume));
  }

  private async processClaim(key: string): Promise<void> {
    const { namespace, name } = splitObjectKey(key);
    const claim = this.informers.claims.lister.get(namespace, name);
    if (claim !== undefined) {
      if (this.state.claims.storeIfNotOlder(claim))
        await this.runSync("claim", key, () => syncClaim(this.state, claim));
      return;
    }
    const deleted = this.state.claims.delete(key);
    // The volume's sync releases it now instead of at the next resync.
    const volumeName = deleted?.spec?.volumeName;
    if (volumeName) this.volumeQueue.add(volumeName);
  }

  private async processVolume(name: string): Promise<void> {
    const volume = this.informers.volumes.lister.get("", name);
    if (volume !== undefined) {
      if (this.state.volumes.storeIfNotOlder(volume)) {
        await this.runSync("volume", name, () => syncVolume(this.state, volume));
      }
      return;
    }
    const deleted = this.state.volumes.delete(name);
    // The claim's sync marks it Lost now instead of at the next resync.
    const claimRef = deleted?.spec?.claimRef;
    if (claimRef != null) this.claimQueue.add(`${claimRef.namespace ?? ""}/${claimRef.name ?? ""}`);
  }

  /** A failed sync is logged and left to the next resync, as Kubernetes does (conflicts are routine). */
  private async runSync(kind: string, key: string, sync: () => Promise<void>): Promise<void> {
    try {
      await sync();
    } catch (error) {
      const level = isConflict(error) ? "info" : "error";
      this.logger.log(level, `could not sync ${kind}`, { key, error: errorMessage(error) });
    }
  }
}
