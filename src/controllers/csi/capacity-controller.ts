/**
 * The capacity controller of external-provisioner (`--enable-capacity`, central mode,
 * pkg/capacity): for every topology segment the driver's nodes report and every
 * WaitForFirstConsumer StorageClass of the driver, one `storage.k8s.io/v1` CSIStorageCapacity
 * holding the answer of GetCapacity(accessible_topology = segment, parameters = the class's).
 *
 * Objects are named `csisc-<random>` (generateName), labelled with the driver and the manager,
 * kept in one namespace; their nodeTopology is the segment as matchLabels. A segment is the values
 * a node's labels give to the topology keys its CSINode lists for the driver. Every object is
 * refreshed each poll period (upstream's `--capacity-poll-interval`, 1 min), and at once when the
 * classes, the nodes, or the driver's volumes change; objects whose class or segment is gone are
 * deleted. Immediate-binding classes get none (`--capacity-for-immediate-binding` is off by default).
 */
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { CSIStorageCapacity, PersistentVolume, StorageClass } from "../../api/objects.ts";
import { Quantity } from "../../api/quantity.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { WorkQueue } from "../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";
import {
  capacityDriverNameLabel,
  capacityManagedByDefault,
  capacityManagedByLabel,
  capacityNamespaceDefault,
  capacityObjectGenerateName,
  capacityPollPeriodMs,
} from "./constants.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import { callWithTimeout } from "./driver-connection.ts";
import { SidecarRun } from "./sidecar-run.ts";

export interface CapacityControllerOptions {
  driverName: string;
  driver: CsiControllerClient;
  /** Where the objects live (the provisioner's namespace). */
  namespace?: string;
  /** `--capacity-ownerref-level`'s owner; kvol's sidecars run in no pod, so none by default. */
  owner?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean };
}

type Segment = Readonly<Record<string, string>>;

/** The one work item: the whole desired set is recomputed, which is cheap at kvol's object counts. */
const syncKey = "sync";

function segmentKey(segment: Segment): string {
  return JSON.stringify(Object.entries(segment).sort(([a], [b]) => a.localeCompare(b)));
}

function itemKey(className: string, segment: Segment): string {
  return `${className}\u0000${segmentKey(segment)}`;
}

function bytesText(bytes: number): string {
  return Quantity.fromBytes(BigInt(Math.max(0, Math.trunc(bytes)))).toString();
}

export class CapacityController implements Controller {
  readonly name: string;
  private readonly logger: Logger;
  private readonly sidecar: SidecarRun;
  private readonly queue: WorkQueue<string>;
  private readonly namespace: string;
  private readonly capacities: SharedInformer<CSIStorageCapacity>;

  constructor(
    private readonly context: ControllerContext,
    private readonly options: CapacityControllerOptions,
  ) {
    this.name = `csi-capacity/${options.driverName}`;
    this.namespace = options.namespace ?? capacityNamespaceDefault;
    this.logger = context.logger.with({ component: "capacity-controller", driver: options.driverName });
    this.sidecar = new SidecarRun({
      name: this.name,
      driverName: options.driverName,
      clock: context.clock,
      logger: this.logger,
      retryStartMs: context.timers.externalProvisionerRetryStartMs,
      retryMaxMs: context.timers.externalProvisionerRetryMaxMs,
    });
    this.queue = this.sidecar.newQueue("capacity");
    this.capacities = context.informers.informerFor("CSIStorageCapacity");
  }

  start(): void {
    this.sidecar.start(() => this.run());
  }

  stop(): Promise<void> {
    return this.sidecar.stop();
  }

  private async run(): Promise<void> {
    const info = await this.sidecar.connect(this.options.driver, this.context.timers.externalProvisionerTimeoutMs);
    if (info === undefined) return;
    if (!info.controllerCapabilities.has("GET_CAPACITY")) {
      this.logger.info("CSI driver does not support GET_CAPACITY; no CSIStorageCapacity objects are published");
      return;
    }
    const factory = this.context.informers;
    const informers = [
      this.capacities,
      factory.informerFor("StorageClass"),
      factory.informerFor("CSINode"),
      factory.informerFor("Node"),
      factory.informerFor("PersistentVolume"),
    ] as const;
    const synced = await Promise.all(informers.map((informer) => informer.waitForSync()));
    if (!synced.every(Boolean) || this.sidecar.isStopped) return;
    const poke = () => this.queue.add(syncKey);
    const onVolume = (volume: PersistentVolume) => {
      if (volume.spec?.csi?.driver === this.options.driverName) poke();
    };
    this.sidecar.listen(
      factory.informerFor("StorageClass").addEventHandler({ onAdd: poke, onUpdate: poke, onDelete: poke }),
      factory.informerFor("CSINode").addEventHandler({ onAdd: poke, onUpdate: poke, onDelete: poke }),
      factory.informerFor("Node").addEventHandler({
        onAdd: poke,
        onUpdate: (old, node) => {
          if (JSON.stringify(old.metadata?.labels) !== JSON.stringify(node.metadata?.labels)) poke();
        },
        onDelete: poke,
      }),
      factory.informerFor("PersistentVolume").addEventHandler({ onAdd: onVolume, onDelete: onVolume }),
    );
    this.sidecar.resyncEvery(capacityPollPeriodMs, poke);
    poke();
    await this.sidecar.runWorkers(1, [{ queue: this.queue, process: () => this.sync() }]);
  }

  /** The segments of the driver's nodes: the node's label values for the CSINode's topology keys. */
  private segments(): Segment[] {
    const nodes = this.context.informers.informerFor("Node").lister;
    const found = new Map<string, Segment>();
    for (const csiNode of this.context.informers.informerFor("CSINode").lister.list()) {
      const entry = csiNode.spec.drivers.find((driver) => driver.name === this.options.driverName);
      const keys = entry?.topologyKeys ?? [];
      if (keys.length === 0) continue;
      const labels = nodes.get("", csiNode.metadata?.name ?? "")?.metadata?.labels ?? {};
      if (!keys.every((key) => labels[key] !== undefined)) continue;
      const segment = Object.fromEntries(keys.map((key) => [key, labels[key] ?? ""]));
      found.set(segmentKey(segment), segment);
    }
    return [...found.values()];
  }

  private classes(): StorageClass[] {
    return this.context.informers
      .informerFor("StorageClass")
      .lister.list()
      .filter(
        (storageClass) =>
          storageClass.provisioner === this.options.driverName &&
          storageClass.volumeBindingMode === "WaitForFirstConsumer",
      );
  }

  private managed(): CSIStorageCapacity[] {
    return this.capacities.lister.list().filter((capacity) => {
      const labels = capacity.metadata?.labels ?? {};
      return (
        capacity.metadata?.namespace === this.namespace &&
        labels[capacityDriverNameLabel] === this.options.driverName &&
        labels[capacityManagedByLabel] === capacityManagedByDefault
      );
    });
  }

  private async sync(): Promise<void> {
    const existing = new Map<string, CSIStorageCapacity>();
    const api = this.context.client.resource("CSIStorageCapacity");
    for (const capacity of this.managed()) {
      const key = itemKey(capacity.storageClassName, capacity.nodeTopology?.matchLabels ?? {});
      if (existing.has(key)) {
        await api.delete(this.namespace, capacity.metadata?.name ?? ""); // a duplicate: upstream removes it too
        continue;
      }
      existing.set(key, capacity);
    }
    const wanted = new Set<string>();
    for (const storageClass of this.classes()) {
      for (const segment of this.segments()) {
        const key = itemKey(storageClass.metadata?.name ?? "", segment);
        wanted.add(key);
        await this.refresh(storageClass, segment, existing.get(key));
      }
    }
    for (const [key, capacity] of existing) {
      if (!wanted.has(key)) await api.delete(this.namespace, capacity.metadata?.name ?? "");
    }
  }

  private async refresh(storageClass: StorageClass, segment: Segment, current: CSIStorageCapacity | undefined) {
    const response = await callWithTimeout(this.context.clock, this.context.timers.externalProvisionerTimeoutMs, () =>
      this.options.driver.getCapacity({
        volumeCapabilities: [],
        parameters: { ...storageClass.parameters },
        accessibleTopology: { segments: { ...segment } },
      }),
    );
    const capacity = bytesText(response.availableCapacity);
    const maximum = response.maximumVolumeSize === null ? undefined : bytesText(response.maximumVolumeSize.value);
    const api = this.context.client.resource("CSIStorageCapacity");
    if (current === undefined) {
      await api.create({
        apiVersion: "storage.k8s.io/v1",
        kind: "CSIStorageCapacity",
        metadata: {
          generateName: capacityObjectGenerateName,
          namespace: this.namespace,
          labels: {
            [capacityDriverNameLabel]: this.options.driverName,
            [capacityManagedByLabel]: capacityManagedByDefault,
          },
          ...(this.options.owner === undefined ? {} : { ownerReferences: [this.options.owner] }),
        },
        storageClassName: storageClass.metadata?.name ?? "",
        nodeTopology: { matchLabels: { ...segment } },
        capacity,
        ...(maximum === undefined ? {} : { maximumVolumeSize: maximum }),
      });
      return;
    }
    if (current.capacity === capacity && current.maximumVolumeSize === maximum) return;
    const { maximumVolumeSize: _old, ...rest } = current;
    await api.update({ ...rest, capacity, ...(maximum === undefined ? {} : { maximumVolumeSize: maximum }) });
  }
}
