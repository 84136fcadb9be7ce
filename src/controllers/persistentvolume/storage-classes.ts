/**
 * What the PV controller asks of StorageClasses: whether a claim's binding waits for its first
 * consumer (IsDelayBindingMode), which class is the default (GetDefaultClass), and filling the
 * default class into a claim that has none (assignDefaultStorageClass, retroactive default class).
 */
import { clone } from "../../api/client/copy.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { PersistentVolumeClaim, StorageClass } from "../../api/objects.ts";
import { claimClassName } from "../../api/storage/pv-helpers.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { goQuote } from "../../runtime/go-quote.ts";
import { annSelectedNode, claimHasClass, hasAnnotation, isDefaultStorageClass } from "./annotations.ts";
import type { PvControllerState } from "./controller-state.ts";

/**
 * True when the claim's class binds WaitForFirstConsumer. A missing class binds at once; a class
 * without a binding mode is an error (the API server always sets one).
 */
export function isDelayBindingMode(claim: PersistentVolumeClaim, classes: Lister<StorageClass>): boolean {
  const className = claimClassName(claim);
  if (className === "") return false;
  const storageClass = classes.get("", className);
  if (storageClass === undefined) return false;
  if (storageClass.volumeBindingMode == null) {
    throw new Error(`VolumeBindingMode not set for StorageClass ${goQuote(className)}`);
  }
  return storageClass.volumeBindingMode === "WaitForFirstConsumer";
}

/** The scheduler has chosen a node for this delayed-binding claim, so it may be provisioned. */
export function isDelayBindingProvisioning(claim: PersistentVolumeClaim): boolean {
  return hasAnnotation(claim, annSelectedNode);
}

/** The default class: of those annotated default, the newest; equal ages by name. */
export function defaultStorageClass(classes: Lister<StorageClass>): StorageClass | undefined {
  const defaults = classes.list().filter(isDefaultStorageClass);
  defaults.sort((a, b) => createdAtMs(b) - createdAtMs(a) || nameOf(a).localeCompare(nameOf(b)));
  return defaults[0];
}

function createdAtMs(storageClass: StorageClass): number {
  const created = storageClass.metadata?.creationTimestamp;
  return created === undefined ? 0 : parseRfc3339(created);
}

function nameOf(storageClass: StorageClass): string {
  return storageClass.metadata?.name ?? "";
}

/** Writes the default class into a claim that asked for none; true when the claim was updated. */
export async function assignDefaultStorageClass(
  state: PvControllerState,
  claim: PersistentVolumeClaim,
): Promise<boolean> {
  if (claimHasClass(claim)) return false;
  const storageClass = defaultStorageClass(state.classLister);
  if (storageClass === undefined) return false;
  const draft = clone(claim);
  draft.spec = { ...draft.spec, storageClassName: nameOf(storageClass) };
  const written = await state.client.persistentVolumeClaims.update(draft);
  state.claims.storeIfNotOlder(written);
  state.logger.info("assigned the default StorageClass to a claim", {
    claim: `${claim.metadata?.namespace}/${claim.metadata?.name}`,
    storageClass: nameOf(storageClass),
  });
  return true;
}
