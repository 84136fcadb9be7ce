/**
 * A StatefulSet's history (`pkg/controller/history`): one ControllerRevision per template the set
 * has had, named `<set>-<hash>` like the `controller-revision-hash` label of its pods, labelled
 * `controller.kubernetes.io/hash`, holding the template as the patch that restores it
 * (`{"spec":{"template":{…,"$patch":"replace"}}}`) and a revision number that grows with each
 * change. Going back to an earlier template (`kubectl rollout undo`) renumbers its revision as the
 * newest instead of making a copy. Beyond `revisionHistoryLimit`, the oldest revisions no pod
 * uses are deleted. `kubectl rollout history` lists them.
 */
import type { Client } from "../../api/client/client.ts";
import { isAlreadyExists, isNotFound } from "../../api/errors.ts";
import type { ControllerRevision, StatefulSet } from "../../api/objects.ts";
import { defaultRevisionHistoryLimit } from "./constants.ts";
import { newControllerRef } from "./controller-ref.ts";
import { statefulSetRevision } from "./statefulset-identity.ts";

/** The label a ControllerRevision carries its hash in (the pods carry the name, `controller-revision-hash`). */
const controllerRevisionHashKey = "controller.kubernetes.io/hash";

function revisionData(set: StatefulSet): Record<string, unknown> {
  return { spec: { template: { ...set.spec?.template, $patch: "replace" } } };
}

function newRevision(set: StatefulSet, name: string, revision: number): ControllerRevision {
  const hash = name.slice((set.metadata?.name ?? "").length + 1);
  return {
    apiVersion: "apps/v1",
    kind: "ControllerRevision",
    metadata: {
      name,
      namespace: set.metadata?.namespace,
      labels: { ...set.spec?.template.metadata?.labels, [controllerRevisionHashKey]: hash },
      ownerReferences: [newControllerRef(set, "apps/v1", "StatefulSet")],
    },
    data: revisionData(set),
    revision,
  };
}

/**
 * Makes sure the set's current template has the newest revision, and trims the history.
 * `revisions` are the set's own, `liveNames` the revisions pods or the status still use.
 */
export async function syncStatefulSetHistory(
  client: Client,
  set: StatefulSet,
  revisions: readonly ControllerRevision[],
  liveNames: ReadonlySet<string>,
): Promise<void> {
  const resource = client.resource("ControllerRevision");
  const namespace = set.metadata?.namespace ?? "";
  const name = statefulSetRevision(set);
  const sorted = [...revisions].sort((a, b) => a.revision - b.revision);
  const newest = sorted.at(-1);
  const existing = sorted.find((revision) => revision.metadata?.name === name);
  const next = (newest?.revision ?? 0) + 1;
  if (existing === undefined) {
    try {
      await resource.create(newRevision(set, name, next));
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  } else if (existing !== newest) {
    await resource.mutate(namespace, name, (draft) => {
      draft.revision = next;
    });
  }
  const limit = set.spec?.revisionHistoryLimit ?? defaultRevisionHistoryLimit;
  const removable = sorted.filter((revision) => {
    const revisionName = revision.metadata?.name ?? "";
    return revisionName !== name && !liveNames.has(revisionName);
  });
  for (const old of removable.slice(0, Math.max(0, removable.length - limit))) {
    try {
      await resource.delete(namespace, old.metadata?.name ?? "");
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
