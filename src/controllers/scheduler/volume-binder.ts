/**
 * The VolumeBinding plugin's PreBind (binder.go BindPodVolumes): make the API carry out what Reserve
 * decided, then wait until the pod's claims are bound before the pod itself is bound.
 *
 * - A chosen volume gets its claimRef written (an update from the cached version, so a volume taken
 *   meanwhile gives Conflict and the pod is retried); the PV controller then completes the binding.
 * - A claim to provision gets `volume.kubernetes.io/selected-node: <node>`; the provisioner creates a
 *   volume there and the PV controller binds it. A provisioner that gives up removes the annotation,
 *   which this wait reports as `provisioning failed for PVC "<name>"`.
 * - The wait polls the informers every `volumeBindingPollIntervalMs` (1 s) for at most
 *   `volumeBindingTimeoutMs` (600 s); errors read `binding volumes: <why>`, as Kubernetes words them.
 */
import type { Client } from "../../api/client/client.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { Node, PersistentVolume, PersistentVolumeClaim, Pod } from "../../api/objects.ts";
import { volumeFitsNode } from "../../api/storage/pv-helpers.ts";
import type { Clock, Timer } from "../../runtime/clock.ts";
import { annSelectedNode } from "./constants.ts";
import { isClaimFullyBound, type PodVolumes } from "./volume-binding.ts";

interface VolumeBinderOptions {
  client: Client;
  clock: Clock;
  pods: Lister<Pod>;
  nodes: Lister<Node>;
  volumes: Lister<PersistentVolume>;
  claims: Lister<PersistentVolumeClaim>;
  pollIntervalMs: number;
  timeoutMs: number;
}

/** What the binder wrote, as the API returned it (its resourceVersion tells a stale cache apart). */
interface Written {
  volumes: PersistentVolume[];
  claims: PersistentVolumeClaim[];
}

function versionOf(object: { metadata?: { resourceVersion?: string } }): number {
  return Number(object.metadata?.resourceVersion ?? "0");
}

class BindingWaitError extends Error {
  constructor(why: string) {
    super(`binding volumes: ${why}`);
    this.name = "BindingWaitError";
  }
}

export class VolumeBinder {
  private readonly options: VolumeBinderOptions;
  /** Poll pauses in progress, so that `stop` can end them without waiting for the clock. */
  private readonly pauses = new Map<Timer, () => void>();
  private stopped = false;

  constructor(options: VolumeBinderOptions) {
    this.options = options;
  }

  /**
   * BindPodVolumes: writes the chosen claimRefs and selected-node annotations (`podVolumes` holds the
   * assumed objects from Reserve), then waits for every claim to be bound. Rejects with the reason.
   */
  async bindPodVolumes(pod: Pod, nodeName: string, podVolumes: PodVolumes): Promise<void> {
    const written = await this.writeDecisions(podVolumes);
    const maxPolls = Math.max(1, Math.floor(this.options.timeoutMs / this.options.pollIntervalMs));
    for (let poll = 1; poll <= maxPolls; poll++) {
      await this.pause();
      if (this.stopped) throw new BindingWaitError("the scheduler is stopping");
      if (this.bindingsComplete(pod, nodeName, written)) return;
    }
    throw new BindingWaitError("context deadline exceeded");
  }

  /** Ends every wait in progress (they reject) and makes later waits end at once. */
  stop(): void {
    this.stopped = true;
    for (const [timer, resolve] of this.pauses) {
      timer.cancel();
      resolve();
    }
    this.pauses.clear();
  }

  private pause(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.options.clock.setTimer(this.options.pollIntervalMs, () => {
        this.pauses.delete(timer);
        resolve();
      });
      this.pauses.set(timer, resolve);
    });
  }

  private async writeDecisions(podVolumes: PodVolumes): Promise<Written> {
    const written: Written = { volumes: [], claims: [] };
    for (const binding of podVolumes.staticBindings) {
      written.volumes.push(await this.options.client.persistentVolumes.update(binding.volume));
    }
    for (const claim of podVolumes.dynamicProvisions) {
      written.claims.push(await this.options.client.persistentVolumeClaims.update(claim));
    }
    return written;
  }

  /** checkBindings: true when every claim is bound; throws when waiting longer cannot help. */
  private bindingsComplete(pod: Pod, nodeName: string, written: Written): boolean {
    const node = this.options.nodes.get("", nodeName);
    if (node === undefined)
      throw new BindingWaitError(`failed to get node "${nodeName}": nodes "${nodeName}" not found`);
    const name = pod.metadata?.name ?? "";
    if (this.options.pods.get(pod.metadata?.namespace ?? "", name) === undefined) {
      throw new BindingWaitError(`pod does not exist any more: pods "${name}" not found`);
    }
    return (
      written.volumes.every((volume) => this.staticBindingComplete(volume, node)) &&
      written.claims.every((claim) => this.provisioningComplete(claim, node))
    );
  }

  private staticBindingComplete(writtenVolume: PersistentVolume, node: Node): boolean {
    const volumeName = writtenVolume.metadata?.name ?? "";
    const volume = this.options.volumes.get("", volumeName);
    if (volume === undefined) {
      throw new BindingWaitError(`failed to check binding: persistentvolume "${volumeName}" not found`);
    }
    const ref = writtenVolume.spec?.claimRef;
    const claim = this.options.claims.get(ref?.namespace ?? "", ref?.name ?? "");
    if (claim === undefined) {
      throw new BindingWaitError(`failed to check binding: persistentvolumeclaim "${ref?.name ?? ""}" not found`);
    }
    // The informer has not caught up with our own write yet.
    if (versionOf(writtenVolume) > versionOf(volume)) return false;
    this.checkVolumeOnNode(volume, node);
    if (!volume.spec?.claimRef?.uid) throw new BindingWaitError(`ClaimRef got reset for pv "${volumeName}"`);
    return isClaimFullyBound(claim);
  }

  private provisioningComplete(writtenClaim: PersistentVolumeClaim, node: Node): boolean {
    const name = writtenClaim.metadata?.name ?? "";
    const claim = this.options.claims.get(writtenClaim.metadata?.namespace ?? "", name);
    if (claim === undefined) {
      throw new BindingWaitError(`failed to check provisioning pvc: persistentvolumeclaim "${name}" not found`);
    }
    if (versionOf(writtenClaim) > versionOf(claim)) return false;
    const annotations = claim.metadata?.annotations;
    if (annotations === undefined) throw new BindingWaitError(`selectedNode annotation reset for PVC "${name}"`);
    // A provisioner that fails removes the annotation so that the scheduler chooses again.
    if (annotations[annSelectedNode] !== node.metadata?.name) {
      throw new BindingWaitError(`provisioning failed for PVC "${name}"`);
    }
    const volumeName = claim.spec?.volumeName;
    if (volumeName) {
      const volume = this.options.volumes.get("", volumeName);
      if (volume === undefined) return false;
      this.checkVolumeOnNode(volume, node);
    }
    return isClaimFullyBound(claim);
  }

  private checkVolumeOnNode(volume: PersistentVolume, node: Node): void {
    if (volumeFitsNode(volume, node)) return;
    const volumeName = volume.metadata?.name ?? "";
    const nodeName = node.metadata?.name ?? "";
    throw new BindingWaitError(
      `pv "${volumeName}" node affinity doesn't match node "${nodeName}": no matching NodeSelectorTerms`,
    );
  }
}
