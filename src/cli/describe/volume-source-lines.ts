/**
 * The `Type:` line and the fields of a volume source, for pods' volumes and persistent volumes,
 * with kubectl's wording for the common sources. Secrets are named, never shown.
 */
import type { PersistentVolumeSpec, Volume } from "kubernetes-types/core/v1.js";

type Lines = [string, string][];

function sourceLines(source: Record<string, unknown>, kind: string, describe: string): Lines {
  const lines: Lines = [["Type:", `${kind} (${describe})`]];
  for (const [field, value] of Object.entries(source)) {
    if (value === undefined || value === null || typeof value === "object") continue;
    lines.push([`${field.charAt(0).toUpperCase()}${field.slice(1)}:`, String(value)]);
  }
  return lines;
}

const known: Record<string, [string, string]> = {
  persistentVolumeClaim: ["PersistentVolumeClaim", "a reference to a PersistentVolumeClaim in the same namespace"],
  emptyDir: ["EmptyDir", "a temporary directory that shares a pod's lifetime"],
  hostPath: ["HostPath", "bare host directory volume"],
  nfs: ["NFS", "an NFS mount that lasts the lifetime of a pod"],
  rbd: ["RBD", "a Rados Block Device mount on the host that shares a pod's lifetime"],
  csi: ["CSI", "a Container Storage Interface (CSI) volume source"],
  configMap: ["ConfigMap", "a volume populated by a ConfigMap"],
  secret: ["Secret", "a volume populated by a Secret"],
  projected: ["Projected", "a volume that contains injected data from multiple sources"],
  downwardAPI: ["DownwardAPI", "a volume populated by information about the pod"],
  local: ["LocalVolume", "a persistent volume backed by local storage on a node"],
  flexVolume: ["FlexVolume", "a generic volume resource that is provisioned/attached using an exec based plugin"],
  ephemeral: ["EphemeralVolume", "an inline specification for a volume that gets created and deleted with the pod"],
};

/** Lines for whichever source field the volume (or persistent volume spec) sets. */
export function volumeSourceLines(volume: Volume | PersistentVolumeSpec): Lines {
  for (const [field, value] of Object.entries(volume)) {
    const description = known[field];
    if (description === undefined || value === null || typeof value !== "object") continue;
    const source = { ...(value as Record<string, unknown>) };
    // kubectl always says whether a claim is mounted read-only.
    if (field === "persistentVolumeClaim") source.readOnly = source.readOnly === true;
    // Options of a flex volume may carry credentials; only their presence is shown.
    if (field === "flexVolume") source.options = undefined;
    const lines = sourceLines(source, description[0], description[1]);
    if (field === "flexVolume") {
      const options = (value as { options?: Record<string, string> }).options ?? {};
      lines.push(["Options:", Object.keys(options).sort().join(", ") || "<none>"]);
    }
    return lines;
  }
  return [["Type:", "<unknown>"]];
}
