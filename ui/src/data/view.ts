/**
 * What the panels draw, whichever source feeds them (a live cluster or a recorded run), and the
 * objects that belong to one pod's or volume's story: its claims, volumes, attachments and nodes,
 * and the other pods on the same claims (the one holding a volume elsewhere is often the cause).
 */
import type { LaneEntry } from "../../../src/api/debug/lanes.ts";
import type { ComponentStates } from "../../../src/api/debug/state-changes.ts";
import type { GraphObject } from "../../../src/cli/webui/graph-objects.ts";
import type { RecordedVerdict, WhyJson } from "../../../src/cli/webui/ui-data.ts";

export interface FaultOffer {
  name: string;
  models: string;
  lasting: boolean;
  targets: Record<string, string | number | boolean>[];
}

export interface ViewData {
  mode: "live" | "recorded";
  title: string;
  /** The moment shown (cluster clock, epoch ms) and the span of the timeline. */
  nowMs: number;
  startMs: number;
  endMs: number;
  objects: GraphObject[];
  states: ComponentStates;
  /** Debug endpoints or reads that failed, with why (a user who is not an administrator reads no debug state). */
  unreadable: string[];
  /** Kinds this user may not read, with the server's refusal (they are left out of the graph). */
  forbidden: string[];
  entries: LaneEntry[];
  /** `kvol why` of the selected object, or why it could not be told. */
  why: WhyJson | { error: string } | undefined;
  /** Live only: the faults this user may inject (administrators), and the cluster's reachability. */
  faults: FaultOffer[] | undefined;
  connection: string;
  verdicts: RecordedVerdict[];
}

/** `pod ns/name` (the timeline's object words) → graph key `pod/ns/name`. */
const kindWords: Readonly<Record<string, string>> = {
  pod: "pod",
  pvc: "pvc",
  persistentvolumeclaim: "pvc",
  pv: "pv",
  persistentvolume: "pv",
  volumeattachment: "attachment",
  node: "node",
};

export function entryKey(object: string): string | undefined {
  const space = object.indexOf(" ");
  if (space < 0) return undefined;
  const word = kindWords[object.slice(0, space)];
  return word === undefined ? undefined : `${word}/${object.slice(space + 1)}`;
}

export interface Story {
  keys: Set<string>;
  /** The story's volumes by every name a component gives them (pv name, CSI volume handle, in-tree image). */
  volumes: string[];
  /** Names and uids an entry's `related` list may carry. */
  names: Set<string>;
}

/** The selected object and everything its story touches. */
export function storyOf(selected: string, objects: readonly GraphObject[]): Story {
  const byKey = new Map(objects.map((object) => [object.key, object]));
  const keys = new Set<string>([selected]);
  const incoming = (key: string) => objects.filter((object) => object.edges.includes(key));
  const selectedObject = byKey.get(selected);
  // Down the edges (pod → claim → pv → attachment → node), at most the graph's depth.
  const walkDown = (start: string[]) => {
    let frontier = start;
    for (let depth = 0; depth < 5 && frontier.length > 0; depth++) {
      const next: string[] = [];
      for (const key of frontier) {
        for (const edge of byKey.get(key)?.edges ?? []) {
          if (!keys.has(edge)) {
            keys.add(edge);
            next.push(edge);
          }
        }
      }
      frontier = next;
    }
  };
  walkDown([selected]);
  // Up to the claims and pods that lead to the selected object or its volumes.
  const claimsAndVolumes = [...keys].filter((key) => key.startsWith("pv/") || key.startsWith("pvc/"));
  if (selectedObject?.kind !== "Node") {
    for (const volume of claimsAndVolumes) {
      for (const claim of incoming(volume)) {
        if (claim.kind === "Node") continue;
        keys.add(claim.key);
        for (const pod of incoming(claim.key)) keys.add(pod.key);
      }
    }
    walkDown([...keys]);
  }
  const names = new Set<string>();
  for (const key of keys) {
    const object = byKey.get(key);
    if (object === undefined) continue;
    names.add(object.name);
    if (object.namespace !== "") names.add(`${object.namespace}/${object.name}`);
    if (object.uid !== "") names.add(object.uid);
    for (const alias of object.aliases ?? []) names.add(alias);
  }
  const volumes = [...keys]
    .filter((key) => key.startsWith("pv/"))
    .flatMap((key) => {
      const object = byKey.get(key);
      return object === undefined ? [] : [object.name, ...(object.aliases ?? [])];
    });
  return { keys, names, volumes };
}

export function inStory(entry: LaneEntry, story: Story): boolean {
  const key = entryKey(entry.object);
  if (key !== undefined && story.keys.has(key)) return true;
  return (entry.related ?? []).some((name) => story.names.has(name));
}

/** Run time or time of day, as the timeline's labels read. */
export function clockLabel(atMs: number, startMs: number, mode: ViewData["mode"]): string {
  if (mode === "recorded") {
    const total = Math.max(0, Math.round((atMs - startMs) / 100)) / 10;
    const minutes = Math.floor(total / 60);
    const seconds = (total - minutes * 60).toFixed(1).padStart(4, "0");
    return `${String(minutes).padStart(2, "0")}:${seconds}`;
  }
  return new Date(atMs).toISOString().slice(11, 19);
}
