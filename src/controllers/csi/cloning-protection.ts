/**
 * external-provisioner's cloning protection (pkg/controller/clone_controller.go), for drivers that
 * offer CLONE_VOLUME. Before CreateVolume clones a claim, the provisioner puts
 * `provisioner.storage.kubernetes.io/cloning-protection` on the source claim (`addCloneFinalizer`),
 * so the source cannot go away while its data is copied. When the source is being deleted, this
 * controller removes the finalizer once no claim of its namespace whose `dataSource` names it is
 * still Pending; until then it retries (1 s doubling to 5 min), and the claim stays Terminating.
 */

import { isNotFound } from "../../api/errors.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { PersistentVolumeClaim } from "../../api/objects.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { WorkQueue } from "../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";
import { pvcCloneFinalizer } from "./constants.ts";
import type { CsiControllerClient } from "./driver-connection.ts";
import { finalizersWith, finalizersWithout, hasFinalizer } from "./finalizers.ts";
import type { ProvisionerState } from "./provisioner-state.ts";
import { SidecarRun } from "./sidecar-run.ts";

/** The provisioner's setCloneFinalizer: the source claim (named by the new claim's dataSource) gets the finalizer. */
export async function addCloneFinalizer(state: ProvisionerState, namespace: string, sourceName: string): Promise<void> {
  const claims = state.client.persistentVolumeClaims;
  const source = await claims.get(namespace, sourceName);
  if (hasFinalizer(source, pvcCloneFinalizer)) return;
  await claims.mutate(namespace, sourceName, (draft) => {
    draft.metadata = { ...draft.metadata, finalizers: finalizersWith(draft, pvcCloneFinalizer) };
  });
}

interface CloningProtectionOptions {
  driverName: string;
  driver: CsiControllerClient;
}

export class CloningProtectionController implements Controller {
  readonly name: string;
  private readonly logger: Logger;
  private readonly sidecar: SidecarRun;
  private readonly queue: WorkQueue<string>;
  private readonly claims: SharedInformer<PersistentVolumeClaim>;

  constructor(
    private readonly context: ControllerContext,
    private readonly options: CloningProtectionOptions,
  ) {
    this.name = `cloning-protection/${options.driverName}`;
    this.logger = context.logger.with({ component: "cloning-protection", driver: options.driverName });
    this.sidecar = new SidecarRun({
      name: this.name,
      driverName: options.driverName,
      clock: context.clock,
      logger: this.logger,
      retryStartMs: context.timers.externalProvisionerRetryStartMs,
      retryMaxMs: context.timers.externalProvisionerRetryMaxMs,
    });
    this.queue = this.sidecar.newQueue("cloning-protection");
    this.claims = context.informers.informerFor("PersistentVolumeClaim");
  }

  start(): void {
    this.sidecar.start(() => this.run());
  }

  stop(): Promise<void> {
    return this.sidecar.stop();
  }

  private async run(): Promise<void> {
    const info = await this.sidecar.connect(this.options.driver, this.context.timers.externalProvisionerTimeoutMs);
    // Upstream runs this controller only for drivers that clone.
    if (info === undefined || !info.controllerCapabilities.has("CLONE_VOLUME")) return;
    if (!(await this.claims.waitForSync()) || this.sidecar.isStopped) return;
    const enqueue = (claim: PersistentVolumeClaim) => {
      if (claim.metadata?.deletionTimestamp != null) this.queue.add(keyOf(claim));
    };
    this.sidecar.listen(this.claims.addEventHandler({ onAdd: enqueue, onUpdate: (_old, claim) => enqueue(claim) }));
    await this.sidecar.runWorkers(1, [{ queue: this.queue, process: (key) => this.sync(key) }]);
  }

  private async sync(key: string): Promise<void> {
    const [namespace = "", name = ""] = key.split("/");
    const claim = this.claims.lister.get(namespace, name);
    if (claim === undefined || !hasFinalizer(claim, pvcCloneFinalizer)) return;
    const cloning = this.claims.lister
      .list()
      .find(
        (other) =>
          other.metadata?.namespace === namespace &&
          other.spec?.dataSource?.kind === "PersistentVolumeClaim" &&
          other.spec.dataSource.name === name &&
          other.status?.phase === "Pending",
      );
    if (cloning !== undefined) {
      throw new Error(`PVC '${cloning.metadata?.name ?? ""}' is in 'Pending' state, cloning in progress`);
    }
    try {
      await this.context.client.persistentVolumeClaims.mutate(namespace, name, (draft) => {
        draft.metadata = { ...draft.metadata, finalizers: finalizersWithout(draft, pvcCloneFinalizer) };
      });
    } catch (error) {
      // Gone already: nothing left to protect.
      if (!isNotFound(error)) throw error;
    }
  }
}

function keyOf(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
}
