/**
 * The attach/detach half of the CSI plugin (Kubernetes' csi_attacher.go, controller side, spec
 * §2.11). Attaching a CSI volume means asking the driver's external-attacher through a
 * VolumeAttachment object, then waiting for its status:
 *
 * - attach: create `csi-<sha256(handle + driver + node)>` (AlreadyExists is fine), poll the
 *   VolumeAttachment informer (500 ms ×1.05 up to 7 s, jitter 0.1, reset after 1 min) until
 *   `status.attached`, `status.attachError`, deletion, or csiTimeout (2 min);
 * - detach: delete it and poll until it is gone, `status.detachError`, or csiTimeout;
 * - "still attached?": the informer's `status.attached`, never an API call per volume.
 *
 * The kubelet's WaitForAttach makes one GET and requires `status.attached`.
 */
import type { PersistentVolume } from "kubernetes-types/core/v1.js";
import type { CSIDriver, VolumeAttachment } from "kubernetes-types/storage/v1.js";
import { isApiError } from "../../../api/errors.ts";
import type { Clock } from "../../../runtime/clock.ts";
import type { Rng } from "../../../runtime/rng.ts";
import { Backoff, csiVolumeAttachmentPollBackoff } from "../../../runtime/wait-backoff.ts";
import { sha256Hex } from "../../paths.ts";
import type { VolumeSpec } from "../../spec.ts";

/** `<driver>^<volumeHandle>`: the separator of a CSI volume name (spec §5.2). */
export const csiVolumeNameSeparator = "^";
export const volumeAttachmentBeingDeletedText = "volume attachment is being deleted";

/** The API access the attacher needs; `client.volumeAttachments` and informer listers satisfy it. */
interface CsiAttacherApi {
  createVolumeAttachment(attachment: VolumeAttachment): Promise<unknown>;
  deleteVolumeAttachment(name: string): Promise<unknown>;
  /** A live read (the kubelet's WaitForAttach); rejects with ApiError NotFound when absent. */
  getVolumeAttachment(name: string): Promise<VolumeAttachment>;
  /** The informer's copy, or undefined. */
  cachedVolumeAttachment(name: string): VolumeAttachment | undefined;
  /** The informer's CSIDriver, or undefined when the driver has none. */
  cachedCsiDriver(name: string): CSIDriver | undefined;
}

interface CsiAttacherOptions {
  api: CsiAttacherApi;
  clock: Clock;
  /** Draws the poll jitter. */
  rng: Rng;
  /** csiTimeout: how long attach and detach wait for the external-attacher. */
  csiTimeoutMs: number;
}

/** A CSI persistent volume's driver and handle. */
interface CsiVolumeId {
  driver: string;
  volumeHandle: string;
}

/** The driver and handle of a CSI PV, or undefined for any other spec. */
export function csiVolumeId(spec: VolumeSpec): CsiVolumeId | undefined {
  const csi = spec.persistentVolume?.spec?.csi;
  return csi === undefined ? undefined : { driver: csi.driver, volumeHandle: csi.volumeHandle };
}

function requireCsiVolumeId(spec: VolumeSpec): CsiVolumeId {
  const id = csiVolumeId(spec);
  if (id === undefined) throw new Error(`volume "${spec.name()}" is not a CSI persistent volume (spec.csi is not set)`);
  return id;
}

/** `<driver>^<handle>` back into its parts. */
function parseCsiVolumeName(volumeName: string): CsiVolumeId {
  const at = volumeName.indexOf(csiVolumeNameSeparator);
  if (at <= 0 || at === volumeName.length - 1) {
    throw new Error(`unexpected CSI volume name "${volumeName}": want <driver>${csiVolumeNameSeparator}<volumeHandle>`);
  }
  return { driver: volumeName.slice(0, at), volumeHandle: volumeName.slice(at + 1) };
}

/** `csi-<hex sha256(volumeHandle + driverName + nodeName)>`. */
export function volumeAttachmentName(volumeHandle: string, driverName: string, nodeName: string): string {
  return `csi-${sha256Hex(volumeHandle + driverName + nodeName)}`;
}

/** A missing CSIDriver object means attach is required. */
function csiDriverRequiresAttach(driver: CSIDriver | undefined): boolean {
  return driver?.spec?.attachRequired !== false;
}

function newVolumeAttachment(name: string, id: CsiVolumeId, nodeName: string, pv: PersistentVolume): VolumeAttachment {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "VolumeAttachment",
    metadata: { name },
    spec: { attacher: id.driver, nodeName, source: { persistentVolumeName: pv.metadata?.name ?? "" } },
  };
}

/** What one look at the VolumeAttachment decided: done, failed, or look again. */
type PollVerdict = { done: true } | { error: string } | undefined;

export class CsiAttacher {
  private readonly api: CsiAttacherApi;
  private readonly clock: Clock;
  private readonly rng: Rng;
  private readonly csiTimeoutMs: number;

  constructor(options: CsiAttacherOptions) {
    this.api = options.api;
    this.clock = options.clock;
    this.rng = options.rng;
    this.csiTimeoutMs = options.csiTimeoutMs;
  }

  /** Whether the driver needs attaching at all (CSIDriver `attachRequired`, true when absent). */
  requiresAttach(spec: VolumeSpec): boolean {
    const id = csiVolumeId(spec);
    return id !== undefined && csiDriverRequiresAttach(this.api.cachedCsiDriver(id.driver));
  }

  /** Creates the VolumeAttachment and waits for the external-attacher; resolves with "" (no device path). */
  async attach(spec: VolumeSpec, nodeName: string): Promise<string> {
    const id = requireCsiVolumeId(spec);
    const pv = spec.persistentVolume as PersistentVolume;
    const name = volumeAttachmentName(id.volumeHandle, id.driver, nodeName);
    try {
      await this.api.createVolumeAttachment(newVolumeAttachment(name, id, nodeName, pv));
    } catch (err) {
      if (!isApiError(err, "AlreadyExists")) throw err;
    }
    try {
      await this.poll(name, (attachment) => this.attachVerdict(attachment));
    } catch (err) {
      if (err instanceof PollTimeout) {
        throw new Error(
          `timed out waiting for external-attacher of ${id.driver} CSI driver to attach volume ${id.volumeHandle}`,
        );
      }
      throw err;
    }
    return "";
  }

  /** Deletes the VolumeAttachment and waits until it is gone. `volumeName` is `<driver>^<handle>`. */
  async detach(volumeName: string, nodeName: string): Promise<void> {
    const id = parseCsiVolumeName(volumeName);
    const name = volumeAttachmentName(id.volumeHandle, id.driver, nodeName);
    try {
      await this.api.deleteVolumeAttachment(name);
    } catch (err) {
      if (isApiError(err, "NotFound")) return;
      throw err;
    }
    const verdict = (attachment: VolumeAttachment | undefined): PollVerdict => {
      if (attachment === undefined) return { done: true };
      const detachError = attachment.status?.detachError?.message;
      return detachError === undefined ? undefined : { error: detachError };
    };
    try {
      await this.poll(name, verdict);
    } catch (err) {
      if (err instanceof PollTimeout) {
        throw new Error(
          `timed out waiting for external-attacher of ${id.driver} CSI driver to detach volume ${id.volumeHandle}`,
        );
      }
      throw err;
    }
  }

  /** Per spec name, whether the informer's VolumeAttachment for `nodeName` says attached. */
  async volumesAreAttached(specs: readonly VolumeSpec[], nodeName: string): Promise<Map<string, boolean>> {
    const answers = new Map<string, boolean>();
    for (const spec of specs) {
      const id = csiVolumeId(spec);
      const attachment =
        id === undefined
          ? undefined
          : this.api.cachedVolumeAttachment(volumeAttachmentName(id.volumeHandle, id.driver, nodeName));
      answers.set(spec.name(), attachment?.status?.attached === true);
    }
    return answers;
  }

  /**
   * The kubelet's WaitForAttach on `nodeName`: one live GET; resolves with the VolumeAttachment name,
   * which serves as the device path.
   */
  async checkAttached(spec: VolumeSpec, nodeName: string): Promise<string> {
    const id = requireCsiVolumeId(spec);
    const name = volumeAttachmentName(id.volumeHandle, id.driver, nodeName);
    const attachment = await this.api.getVolumeAttachment(name);
    if (attachment.status?.attached !== true) {
      throw new Error(`volume ${id.volumeHandle} is not attached for volume attachment ${name}`);
    }
    return name;
  }

  private attachVerdict(attachment: VolumeAttachment | undefined): PollVerdict {
    if (attachment === undefined) return undefined;
    if (attachment.metadata?.deletionTimestamp) return { error: volumeAttachmentBeingDeletedText };
    if (attachment.status?.attached === true) return { done: true };
    const attachError = attachment.status?.attachError?.message;
    return attachError === undefined ? undefined : { error: attachError };
  }

  /**
   * Looks at the informer's copy with the VolumeAttachment backoff until `verdict` decides, or
   * until csiTimeout, whichever comes first (a wait that would cross the deadline ends at it).
   */
  private async poll(name: string, verdict: (attachment: VolumeAttachment | undefined) => PollVerdict): Promise<void> {
    const backoff = new Backoff(csiVolumeAttachmentPollBackoff, this.rng, this.clock);
    const deadlineMs = this.clock.now() + this.csiTimeoutMs;
    // Bounded by the deadline: every pass sleeps at least the initial 500 ms or ends.
    for (;;) {
      const decided = verdict(this.api.cachedVolumeAttachment(name));
      if (decided !== undefined) {
        if ("error" in decided) throw new Error(decided.error);
        return;
      }
      const delayMs = backoff.step();
      const remainingMs = deadlineMs - this.clock.now();
      if (delayMs >= remainingMs) {
        await this.clock.sleep(Math.max(0, remainingMs));
        throw new PollTimeout();
      }
      await this.clock.sleep(delayMs);
    }
  }
}

/** The poll reached csiTimeout; attach and detach word it for their direction. */
class PollTimeout extends Error {
  constructor() {
    super("timed out waiting for the condition");
    this.name = "PollTimeout";
  }
}
