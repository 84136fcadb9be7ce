/**
 * What a describer may use: the API (for events and related objects) and the current time for
 * ages. Events are found as kubectl finds them: by field selectors on the involved object's name,
 * namespace, kind and uid.
 */
import type { Event, ObjectMeta, Pod } from "../../api/objects.ts";
import type { KubeApi } from "../client/kube-api.ts";

export interface DescribeContext {
  api: KubeApi;
  nowMs: number;
}

interface InvolvedObject {
  kind: string;
  name: string;
  namespace: string;
  uid?: string;
}

export function involvedObjectOf(kind: string, object: { metadata?: ObjectMeta }): InvolvedObject {
  return {
    kind,
    name: object.metadata?.name ?? "",
    namespace: object.metadata?.namespace ?? "",
    ...(object.metadata?.uid === undefined ? {} : { uid: object.metadata.uid }),
  };
}

/** The events about `ref`: in its namespace, or in every namespace for a cluster-scoped object. */
export async function searchEvents(context: DescribeContext, ref: InvolvedObject): Promise<Event[]> {
  const selector = [
    `involvedObject.name=${ref.name}`,
    `involvedObject.namespace=${ref.namespace}`,
    `involvedObject.kind=${ref.kind}`,
    ...(ref.uid === undefined ? [] : [`involvedObject.uid=${ref.uid}`]),
  ].join(",");
  const path =
    ref.namespace === "" ? "/api/v1/events" : `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/events`;
  const list = await context.api.json<{ items?: Event[] }>({
    method: "GET",
    path,
    query: new URLSearchParams({ fieldSelector: selector }),
  });
  return list.items ?? [];
}

/** The pods of a namespace (or of all, with ""), narrowed by a field selector when given. */
export async function listPods(context: DescribeContext, namespace: string, fieldSelector?: string): Promise<Pod[]> {
  const path = namespace === "" ? "/api/v1/pods" : `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`;
  const query = new URLSearchParams(fieldSelector === undefined ? {} : { fieldSelector });
  const list = await context.api.json<{ items?: Pod[] }>({ method: "GET", path, query });
  return list.items ?? [];
}
