/**
 * Claim links: why a claim is not bound (no class, no default class, WaitForFirstConsumer, no
 * matching volume, the provisioner failing or silent), and why a deleted claim stays
 * (kubernetes.io/pvc-protection and the pods that still name it).
 */
import type { PersistentVolumeClaim, Pod, StorageClass } from "../../api/objects.ts";
import { type Chain, clockTime, timeMs } from "./chain.ts";

const pvcProtectionFinalizer = "kubernetes.io/pvc-protection";
const defaultClassAnnotations = [
  "storageclass.kubernetes.io/is-default-class",
  "storageclass.beta.kubernetes.io/is-default-class",
];

function claimName(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ""}/${claim.metadata?.name ?? ""}`;
}

function isDefaultClass(storageClass: StorageClass): boolean {
  return defaultClassAnnotations.some((key) => storageClass.metadata?.annotations?.[key] === "true");
}

/** Pods of the claim's namespace that name it in their volumes. */
export async function podsUsingClaim(chain: Chain, claim: PersistentVolumeClaim): Promise<Pod[]> {
  const pods = await chain.reader.list("Pod", claim.metadata?.namespace ?? "");
  return pods.filter((pod) =>
    (pod.spec?.volumes ?? []).some((volume) => volume.persistentVolumeClaim?.claimName === claim.metadata?.name),
  );
}

/** Adds the links of a claim; returns true when the claim blocks (not Bound, or Terminating). */
export async function explainClaim(chain: Chain, claim: PersistentVolumeClaim, asUsedBy?: Pod): Promise<boolean> {
  const name = claimName(claim);
  if (claim.metadata?.deletionTimestamp !== undefined) return explainTerminatingClaim(chain, claim, asUsedBy);
  const phase = claim.status?.phase ?? "Pending";
  if (phase === "Bound") {
    chain.add(
      `claim ${name}`,
      `Bound to pv ${claim.spec?.volumeName ?? ""}`,
      timeMs(claim.metadata?.creationTimestamp),
    );
    return false;
  }
  const events = await chain.reader.events(
    "PersistentVolumeClaim",
    claim.metadata?.namespace ?? "",
    claim.metadata?.name ?? "",
  );
  const evidence = events.slice(-2).map((event) => chain.eventEvidence(event));
  const since = timeMs(claim.metadata?.creationTimestamp);
  const className = claim.spec?.storageClassName;
  if (phase === "Lost") {
    chain.add(
      `claim ${name}`,
      `Lost: its volume ${claim.spec?.volumeName ?? ""} does not exist any more`,
      since,
      evidence,
    );
    chain.todo("The data is gone with the volume; recreate the claim (and restore from a backup).");
    return true;
  }
  if (className === undefined) {
    const classes = await chain.reader.list("StorageClass");
    if (!classes.some(isDefaultClass)) {
      chain.add(
        `claim ${name}`,
        "Pending: it names no storage class and the cluster has no default StorageClass",
        since,
        evidence,
      );
      chain.todo(
        `Set spec.storageClassName on the claim (kubectl get storageclass lists them), or mark one default: kubectl annotate storageclass NAME storageclass.kubernetes.io/is-default-class=true`,
      );
      return true;
    }
  }
  if (className === "" || className === undefined) return explainNoMatchingVolume(chain, claim, evidence);
  const storageClass = await chain.reader.get("StorageClass", "", className);
  if (storageClass === undefined) {
    chain.add(`claim ${name}`, `Pending: storageclass "${className}" not found`, since, evidence);
    chain.todo(
      `Create storage class ${className}, or change the claim's storageClassName to one that exists (kubectl get storageclass).`,
    );
    return true;
  }
  return explainProvisioning(chain, claim, storageClass, evidence);
}

async function explainNoMatchingVolume(
  chain: Chain,
  claim: PersistentVolumeClaim,
  evidence: string[],
): Promise<boolean> {
  const request = claim.spec?.resources?.requests?.storage ?? "";
  chain.add(
    `claim ${claimName(claim)}`,
    `Pending: no PersistentVolume matches it (static binding: ${claim.spec?.accessModes?.join(",") ?? ""}, ${request}${claim.spec?.selector === undefined ? "" : ", with a selector"})`,
    timeMs(claim.metadata?.creationTimestamp),
    evidence,
  );
  chain.todo(
    "Create a PersistentVolume with at least the requested size, the same access modes and storage class (and the selector's labels), or set a storageClassName that provisions one.",
  );
  return true;
}

async function explainProvisioning(
  chain: Chain,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  evidence: string[],
): Promise<boolean> {
  const name = claimName(claim);
  const since = timeMs(claim.metadata?.creationTimestamp);
  const events = await chain.reader.events(
    "PersistentVolumeClaim",
    claim.metadata?.namespace ?? "",
    claim.metadata?.name ?? "",
  );
  const failed = events.filter((event) => event.reason === "ProvisioningFailed").at(-1);
  const selectedNode = claim.metadata?.annotations?.["volume.kubernetes.io/selected-node"];
  if (storageClass.volumeBindingMode === "WaitForFirstConsumer" && selectedNode === undefined) {
    const users = (await podsUsingClaim(chain, claim)).filter((pod) => pod.metadata?.deletionTimestamp === undefined);
    chain.add(
      `claim ${name}`,
      `Pending: waiting for first consumer (storage class ${storageClass.metadata?.name} binds at the first pod's scheduling)`,
      since,
      evidence,
    );
    if (users.length === 0) {
      chain.todo(
        "Nothing is wrong: create a pod that uses the claim; the volume is provisioned in the zone the pod is scheduled to.",
      );
    } else {
      chain.todo(
        `The pod ${users[0]?.metadata?.name} that uses it is not scheduled yet: see kvol why pod/${users[0]?.metadata?.name}.`,
      );
    }
    return true;
  }
  const provisioner = storageClass.provisioner;
  if (failed !== undefined) {
    const state = await chain.reader.persistentVolumeState();
    const pending = state?.pendingClaims.find((entry) => entry.uid === claim.metadata?.uid);
    const retry = pending?.operations.find((operation) => operation.noRetriesPermittedUntil !== undefined);
    const retryText =
      retry?.noRetriesPermittedUntil === undefined
        ? []
        : [
            `PV controller: ${retry.operationName} no retries permitted until ${clockTime(timeMs(retry.noRetriesPermittedUntil) ?? 0)} (durationBeforeRetry ${retry.durationBeforeRetry})`,
          ];
    chain.add(`claim ${name}`, `Pending: provisioner ${provisioner} fails: ${failed.message ?? ""}`, since, [
      chain.eventEvidence(failed),
      ...retryText,
    ]);
    chain.todo(...provisioningRemedy(provisioner, storageClass.metadata?.name ?? "", failed.message ?? ""));
    return true;
  }
  chain.add(`claim ${name}`, `Pending: waiting for provisioner ${provisioner} to create the volume`, since, evidence);
  chain.todo(
    `If it stays so, check that ${provisioner}'s provisioner is running (for CSI drivers, the external-provisioner).`,
  );
  return true;
}

async function explainTerminatingClaim(chain: Chain, claim: PersistentVolumeClaim, asUsedBy?: Pod): Promise<boolean> {
  const name = claimName(claim);
  const since = timeMs(claim.metadata?.deletionTimestamp);
  const protectedBy = claim.metadata?.finalizers?.includes(pvcProtectionFinalizer) ?? false;
  if (!protectedBy) {
    chain.add(
      `claim ${name}`,
      `Terminating, held by finalizers ${(claim.metadata?.finalizers ?? []).join(", ")}`,
      since,
    );
    chain.todo("The controller that owns each finalizer removes it when its work is done.");
    return true;
  }
  const users = (await podsUsingClaim(chain, claim)).filter((pod) => pod !== asUsedBy);
  chain.add(`claim ${name}`, `Terminating: ${pvcProtectionFinalizer} keeps it while a pod uses it`, since);
  if (users.length === 0) {
    chain.todo("No pod names it any more: the pvc-protection controller removes the finalizer at its next pass.");
    return true;
  }
  for (const pod of users) {
    const phase = pod.status?.phase ?? "Pending";
    const completed = phase === "Succeeded" || phase === "Failed";
    chain.add(
      `pod ${pod.metadata?.namespace}/${pod.metadata?.name}`,
      completed
        ? `${phase === "Succeeded" ? "Completed" : "Failed"}, but its object still names the claim`
        : `${phase}, uses the claim`,
      timeMs(pod.metadata?.creationTimestamp),
    );
  }
  const names = users.map((pod) => pod.metadata?.name ?? "").join(" ");
  chain.todo(
    `Delete the pod(s) that use it: kubectl delete pod -n ${claim.metadata?.namespace} ${names}` +
      " (a completed pod counts until its object is deleted); the claim then goes.",
  );
  return true;
}

/** What to do about a failing CreateVolume, by the gRPC code the driver answered. */
function provisioningRemedy(provisioner: string, className: string, message: string): string[] {
  const retries = "the provisioner retries with backoff and picks the change up.";
  if (/code = InvalidArgument/.test(message)) {
    return [
      `${provisioner} refuses the request as invalid: fix the claim's spec, or storage class ${className}'s parameters; ${retries}`,
      `A class cannot be edited: kubectl get storageclass ${className} -o yaml > class.yaml, fix it, kubectl replace --force -f class.yaml.`,
    ];
  }
  if (/code = (ResourceExhausted|OutOfRange)/.test(message)) {
    return [`${provisioner} has no room for the volume: free capacity in its pool, or request less; ${retries}`];
  }
  return [`Fix what provisioner ${provisioner} reports (its logs say more); it retries with backoff.`];
}
