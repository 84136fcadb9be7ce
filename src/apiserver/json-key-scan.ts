/**
 * A pass over JSON text that JSON.parse does not offer: where each object key first appears (by
 * its field path, `spec.containers[0].name`) and which keys an object repeats. JSON.parse keeps
 * the last of repeated keys silently; kube-apiserver reports them as `duplicate field "x"`.
 * The text must already be valid JSON (it is parsed first), so the scanner only tracks structure.
 */

interface DuplicateKey {
  /** The report, in Kubernetes' words (`duplicate field "paused"`). */
  text: string;
  /** Its field path (`spec.paused`). */
  path: string;
  /** Where the repetition starts in the text, to order the reports as the body reads. */
  offset: number;
}

/** What a body's text tells beyond its value: repeated keys, and where each field path first appears. */
export interface JsonKeyScan {
  duplicates: DuplicateKey[];
  /** The offset of each field path's first key, for ordering reports about those fields. */
  firstOffsets: Map<string, number>;
}

interface ObjectFrame {
  kind: "object";
  path: string;
  keys: Set<string>;
  expectKey: boolean;
  key: string;
}

interface ArrayFrame {
  kind: "array";
  path: string;
  index: number;
}

type Frame = ObjectFrame | ArrayFrame;

function childPath(frame: Frame | undefined): string {
  if (frame === undefined) return "";
  if (frame.kind === "array") return `${frame.path}[${frame.index}]`;
  return frame.path === "" ? frame.key : `${frame.path}.${frame.key}`;
}

/** The index just past the string starting at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (char === "\\") index += 2;
    else if (char === '"') return index + 1;
    else index += 1;
  }
  return index;
}

function recordKey(frame: ObjectFrame, key: string, offset: number, scan: JsonKeyScan): void {
  frame.key = key;
  frame.expectKey = false;
  const path = childPath(frame);
  if (frame.keys.has(key)) scan.duplicates.push({ text: `duplicate field "${key}"`, path, offset });
  frame.keys.add(key);
  if (!scan.firstOffsets.has(path)) scan.firstOffsets.set(path, offset);
}

export function scanJsonKeys(text: string): JsonKeyScan {
  const scan: JsonKeyScan = { duplicates: [], firstOffsets: new Map() };
  const stack: Frame[] = [];
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const top = stack[stack.length - 1];
    if (char === '"') {
      const end = stringEnd(text, index);
      if (top?.kind === "object" && top.expectKey)
        recordKey(top, JSON.parse(text.slice(index, end)) as string, index, scan);
      index = end;
      continue;
    }
    if (char === "{") stack.push({ kind: "object", path: childPath(top), keys: new Set(), expectKey: true, key: "" });
    else if (char === "[") stack.push({ kind: "array", path: childPath(top), index: 0 });
    else if (char === "}" || char === "]") stack.pop();
    else if (char === ",") {
      if (top?.kind === "object") top.expectKey = true;
      else if (top?.kind === "array") top.index += 1;
    }
    index += 1;
  }
  return scan;
}
