/**
 * The writes a StatefulSet makes, with the events Kubernetes records for them
 * (`stateful_pod_control.go`):
 * - a pod's claims are created before the pod (`create Claim www-web-0 Pod web-0 in StatefulSet web
 *   success`); a claim that exists is reused, one being deleted blocks the pod;
 * - then the pod (`create Pod web-0 in StatefulSet web successful`);
 * - failures become Warning events (`FailedCreate`, `... failed error: <why>`) and are returned, so
 *   the sync is retried with backoff.
 */
import type { Client } from "../../api/client/client.ts";
import { isAlreadyExists } from "../../api/errors.ts";
import type { EventRecorder } from "../../api/events/recorder.ts";
import type { Lister } from "../../api/informer/lister.ts";
import type { PersistentVolumeClaim, Pod, StatefulSet } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { claimsForOrdinal } from "./statefulset-identity.ts";

type Verb = "create" | "delete";

function capitalized(verb: Verb): string {
  return verb.charAt(0).toUpperCase() + verb.slice(1);
}

export class StatefulSetPodControl {
  private readonly client: Client;
  private readonly recorder: EventRecorder;
  private readonly claims: Lister<PersistentVolumeClaim>;

  constructor(client: Client, recorder: EventRecorder, claims: Lister<PersistentVolumeClaim>) {
    this.client = client;
    this.recorder = recorder;
    this.claims = claims;
  }

  /** Creates the pod's missing claims, then the pod. AlreadyExists (a stale cache) is returned without an event. */
  async createPod(set: StatefulSet, pod: Pod, ordinal: number): Promise<void> {
    try {
      await this.createMissingClaims(set, pod, ordinal);
    } catch (error) {
      this.recordPodEvent("create", set, pod, error);
      throw error;
    }
    try {
      await this.client.pods.create(pod);
    } catch (error) {
      if (!isAlreadyExists(error)) this.recordPodEvent("create", set, pod, error);
      throw error;
    }
    this.recordPodEvent("create", set, pod, undefined);
  }

  /** Deletes the pod gracefully (the kubelet finishes it); NotFound is returned to the caller. */
  async deletePod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.client.pods.delete(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
    } catch (error) {
      this.recordPodEvent("delete", set, pod, error);
      throw error;
    }
    this.recordPodEvent("delete", set, pod, undefined);
  }

  /** Creates every claim of pod `ordinal` that does not exist; fails if one is being deleted. */
  async createMissingClaims(set: StatefulSet, pod: Pod, ordinal: number): Promise<void> {
    const problems: string[] = [];
    for (const claim of claimsForOrdinal(set, ordinal)) {
      const name = claim.metadata?.name ?? "";
      const existing = this.claims.get(claim.metadata?.namespace ?? "", name);
      if (existing !== undefined) {
        if (existing.metadata?.deletionTimestamp !== undefined) problems.push(`pvc ${name} is being deleted`);
        continue;
      }
      const problem = await this.createClaim(set, pod, claim);
      if (problem !== undefined) problems.push(problem);
    }
    if (problems.length > 0) throw new Error(problems.length === 1 ? problems[0] : `[${problems.join(", ")}]`);
  }

  private async createClaim(set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim): Promise<string | undefined> {
    try {
      await this.client.persistentVolumeClaims.create(claim);
    } catch (error) {
      // A claim created by an earlier sync that the cache has not shown yet is no news to the user.
      if (!isAlreadyExists(error)) this.recordClaimEvent("create", set, pod, claim, error);
      return `failed to create PVC ${claim.metadata?.name ?? ""}: ${errorMessage(error)}`;
    }
    this.recordClaimEvent("create", set, pod, claim, undefined);
    return undefined;
  }

  private recordPodEvent(verb: Verb, set: StatefulSet, pod: Pod, error: unknown): void {
    const what = `${verb} Pod ${pod.metadata?.name ?? ""} in StatefulSet ${set.metadata?.name ?? ""}`;
    if (error === undefined) {
      this.recorder.event(set, "Normal", `Successful${capitalized(verb)}`, `${what} successful`);
    } else {
      this.recorder.event(set, "Warning", `Failed${capitalized(verb)}`, `${what} failed error: ${errorMessage(error)}`);
    }
  }

  private recordClaimEvent(verb: Verb, set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, error: unknown): void {
    const claimName = claim.metadata?.name ?? "";
    const podName = pod.metadata?.name ?? "";
    const setName = set.metadata?.name ?? "";
    if (error === undefined) {
      const message = `${verb} Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`;
      this.recorder.event(set, "Normal", `Successful${capitalized(verb)}`, message);
    } else {
      const message = `${verb} Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${errorMessage(error)}`;
      this.recorder.event(set, "Warning", `Failed${capitalized(verb)}`, message);
    }
  }
}
