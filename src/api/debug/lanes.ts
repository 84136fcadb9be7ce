/**
 * The timeline of one pod or volume as the web UI draws it: one lane per component that acts on a
 * volume (scheduler, PV controller, attach/detach controller, kubelet, CSI driver, the node's
 * kernel), and one for the rest of the cluster (workload and node controllers, faults, actions).
 * Entries come from Events, from the components' debug states as they change (state-changes.ts)
 * and, in the simulator, from its own timeline. Pure: the browser bundle uses it as it is.
 */

export const lanes = ["scheduler", "pv-controller", "attachdetach", "kubelet", "csi", "kernel", "cluster"] as const;
export type Lane = (typeof lanes)[number];

export const laneTitles: Readonly<Record<Lane, string>> = {
  scheduler: "Scheduler",
  "pv-controller": "PV controller",
  attachdetach: "Attach/detach controller",
  kubelet: "Kubelet",
  csi: "CSI driver",
  kernel: "Kernel (mounts)",
  cluster: "Cluster",
};

/** What an entry is: drawn as a dot (event, warning, action, state) or a bar (operation, backoff). */
export type LaneEntryKind = "event" | "warning" | "action" | "state" | "operation" | "backoff";

export interface LaneEntry {
  /** Cluster clock, epoch milliseconds. */
  atMs: number;
  /** Bars end here (a backoff's "no retries permitted until", an operation's end). */
  untilMs?: number;
  lane: Lane;
  kind: LaneEntryKind;
  /** What it is about, as the simulator's timeline names it: `pod ns/name`, `pv name`, `node name`. */
  object: string;
  message: string;
  /** Names the entry relates to besides `object` (a volume's pods, an operation's volume and node). */
  related?: string[];
}

/** The lane of an Event's source or a log line's component. */
export function laneOf(component: string): Lane {
  const name = component.toLowerCase();
  if (name.includes("scheduler")) return "scheduler";
  if (name.includes("persistentvolume") || name === "pv-controller") return "pv-controller";
  if (name.includes("attachdetach") || name.includes("attach-detach")) return "attachdetach";
  const csiWords = ["csi", "provisioner", "attacher", "resizer", "snapshot", "driver"];
  if (csiWords.some((word) => name.includes(word))) return "csi";
  if (name === "host" || name.includes("kernel") || name.includes("mount")) return "kernel";
  if (name.includes("kubelet") || name.includes("volumemanager")) return "kubelet";
  return "cluster";
}
