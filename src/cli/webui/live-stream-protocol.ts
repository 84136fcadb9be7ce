/**
 * The web UI's live stream, one request that carries what would otherwise take a watch per kind
 * and a poll per debug endpoint (a browser keeps only six HTTP/1.1 connections per server):
 *
 *   GET /apis/kvol.io/v1alpha1/livestream?watch=pods:RV&watch=nodes:RV&…&debug=true
 *
 * Each `watch=RESOURCE[:RV]` is a watch of that resource across namespaces from resourceVersion
 * RV, authorized for the caller exactly as `GET <list path>?watch=true` would be; `debug=true`
 * adds the components' debug states (administrators, as their endpoints). The answer is one JSON
 * object per line, each naming what it is about:
 *
 *   {"resource":"pods","type":"ADDED"|"MODIFIED"|"DELETED"|"BOOKMARK","object":{…}}
 *   {"resource":"nodes","type":"ERROR","object":Status}   that watch ended (403, 410 Gone, …);
 *                                                         the others go on
 *   {"resource":"debug","type":"STATE","component":"kubelet/node-1","object":{…}}
 *   {"resource":"debug","type":"UNREADABLE","component":"…","message":"…"}
 *   {"resource":"debug","type":"GONE","component":"…"}
 *
 * A client resumes after a dropped connection by asking again from the last resourceVersion it
 * saw of each resource (bookmarks keep it recent); a 410 Gone tells it to list that one again.
 * Free of Node APIs: the page imports it.
 */
export const liveStreamPath = "/apis/kvol.io/v1alpha1/livestream";

/** The resources the stream watches, by the name a `watch=` parameter gives, with their list path. */
export const liveResources = {
  pods: { kind: "Pod", listPath: "/api/v1/pods" },
  persistentvolumeclaims: { kind: "PersistentVolumeClaim", listPath: "/api/v1/persistentvolumeclaims" },
  persistentvolumes: { kind: "PersistentVolume", listPath: "/api/v1/persistentvolumes" },
  volumeattachments: { kind: "VolumeAttachment", listPath: "/apis/storage.k8s.io/v1/volumeattachments" },
  nodes: { kind: "Node", listPath: "/api/v1/nodes" },
  events: { kind: "Event", listPath: "/api/v1/events" },
} as const;

export type LiveResource = keyof typeof liveResources;

export const debugResource = "debug";

export interface LiveStatus {
  code?: number;
  reason?: string;
  message?: string;
}

export type LiveLine =
  | {
      resource: LiveResource;
      type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";
      object: { metadata?: { uid?: string; resourceVersion?: string } };
    }
  | { resource: LiveResource; type: "ERROR"; object: LiveStatus }
  | { resource: typeof debugResource; type: "STATE"; component: string; object: object }
  | { resource: typeof debugResource; type: "UNREADABLE"; component: string; message: string }
  | { resource: typeof debugResource; type: "GONE"; component: string };

export function isLiveResource(name: string): name is LiveResource {
  return Object.hasOwn(liveResources, name);
}
