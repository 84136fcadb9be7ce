/**
 * From the moments a watcher saw things happen to a pod and its claim (through the API and the
 * node's mount table) to the duration of each phase of the volume's life. Each phase runs from the
 * latest earlier milestone to its own, so a step that waited on two others (the pod bound to its
 * node only once its claim is Bound) is charged only for its own wait.
 */

/** The milestones of a pod with one attachable volume, in the order the system reaches them. */
export const setupMilestones = [
  ["created", "pod and claim created"],
  ["schedule", "node chosen (claim's selected-node annotation)"],
  ["provision", "claim Bound to a new PV"],
  ["bind", "pod bound (PodScheduled)"],
  ["attach", "VolumeAttachment attached"],
  ["format+mount-device", "global mount in the node's mount table"],
  ["publish", "pod's volume mount in the node's mount table"],
  ["container start", "pod Running"],
] as const;

export const teardownMilestones = [
  ["deleted", "pod and claim deleted"],
  ["container stop", "container terminated"],
  ["unpublish", "pod's volume mount gone"],
  ["unmount device", "global mount gone"],
  ["pod removed", "pod gone from the API"],
  ["detach", "VolumeAttachment gone"],
  ["delete volume", "PV gone"],
] as const;

/** Milliseconds (on any one clock) at which each milestone was first seen. */
export type Milestones = Record<string, number>;

/**
 * The duration of every milestone after the first, in `order`: its time less the latest time of
 * any milestone before it. A milestone not seen makes every later phase unknown (NaN) rather than
 * quietly shorter.
 */
export function phaseDurations(
  order: readonly (readonly [string, string])[],
  seen: Milestones,
): Record<string, number> {
  const [first, ...rest] = order;
  const durations: Record<string, number> = {};
  let latest = first === undefined ? Number.NaN : (seen[first[0]] ?? Number.NaN);
  for (const [name] of rest) {
    const at = seen[name] ?? Number.NaN;
    durations[name] = Math.max(0, at - latest);
    if (Number.isNaN(at) || Number.isNaN(latest)) durations[name] = Number.NaN;
    latest = Math.max(latest, at);
  }
  return durations;
}
