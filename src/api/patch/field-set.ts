/**
 * A set of field paths, as structured-merge-diff's fieldpath.Set: a tree whose edges are path
 * elements and whose nodes may be members themselves. Path elements are kept in their FieldsV1
 * spelling — `f:<field>`, `k:<json of the key fields>`, `v:<json value>`, `i:<index>` — so the
 * set encodes to and decodes from `metadata.managedFields[].fieldsV1` directly:
 *   { "f:spec": { "f:replicas": {} }, "f:metadata": { "f:labels": { ".": {}, "f:app": {} } } }
 * A member without children is `{}`; a member with children carries `".": {}`.
 */

export type PathElement = string;
export type FieldPath = readonly PathElement[];

const memberMarker = ".";

export function fieldElement(name: string): PathElement {
  return `f:${name}`;
}

/** A list-map element by its key fields; the fields are sorted by name, as structured-merge-diff writes them. */
export function keyElement(keys: Readonly<Record<string, unknown>>): PathElement {
  const sorted = Object.keys(keys).sort();
  return `k:{${sorted.map((name) => `${JSON.stringify(name)}:${JSON.stringify(keys[name])}`).join(",")}}`;
}

export function valueElement(value: unknown): PathElement {
  return `v:${JSON.stringify(value)}`;
}

/** One path element as structured-merge-diff prints it in messages: `.replicas`, `[name="web"]`, `[="a"]`, `[0]`. */
function printElement(element: PathElement): string {
  const body = element.slice(2);
  if (element.startsWith("f:")) return `.${body}`;
  if (element.startsWith("i:")) return `[${body}]`;
  if (element.startsWith("v:")) return `[=${body}]`;
  const keys = JSON.parse(body) as Record<string, unknown>;
  return `[${Object.entries(keys)
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join(",")}]`;
}

/** A path as Kubernetes prints it in apply conflicts: `.spec.template.spec.containers[name="web"].image`. */
export function printPath(path: FieldPath): string {
  return path.map(printElement).join("");
}

export class FieldSet {
  private member = false;
  private readonly children = new Map<PathElement, FieldSet>();

  static fromFieldsV1(encoded: unknown): FieldSet {
    const set = new FieldSet();
    set.decode(encoded);
    return set;
  }

  insert(path: FieldPath): void {
    let node: FieldSet = this;
    for (const element of path) {
      let child = node.children.get(element);
      if (child === undefined) {
        child = new FieldSet();
        node.children.set(element, child);
      }
      node = child;
    }
    node.member = true;
  }

  has(path: FieldPath): boolean {
    return this.nodeAt(path)?.member === true;
  }

  /** True when the set holds `path` or anything below it. */
  hasAtOrBelow(path: FieldPath): boolean {
    const node = this.nodeAt(path);
    return node !== undefined && !node.isEmpty();
  }

  /** True when the set holds something strictly below `path`. */
  hasBelow(path: FieldPath): boolean {
    const node = this.nodeAt(path);
    return node !== undefined && [...node.children.values()].some((child) => !child.isEmpty());
  }

  isEmpty(): boolean {
    return !this.member && [...this.children.values()].every((child) => child.isEmpty());
  }

  /** Every member path, parents before children. */
  paths(): FieldPath[] {
    const result: FieldPath[] = [];
    this.collect([], result);
    return result;
  }

  union(other: FieldSet): FieldSet {
    const result = this.copy();
    for (const path of other.paths()) result.insert(path);
    return result;
  }

  difference(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const path of this.paths()) if (!other.has(path)) result.insert(path);
    return result;
  }

  intersection(other: FieldSet): FieldSet {
    const result = new FieldSet();
    for (const path of this.paths()) if (other.has(path)) result.insert(path);
    return result;
  }

  equals(other: FieldSet): boolean {
    const mine = this.paths();
    return mine.length === other.paths().length && mine.every((path) => other.has(path));
  }

  copy(): FieldSet {
    const result = new FieldSet();
    for (const path of this.paths()) result.insert(path);
    return result;
  }

  /** The FieldsV1 JSON of the set. */
  toFieldsV1(): Record<string, unknown> {
    const encoded: Record<string, unknown> = {};
    const live = [...this.children.entries()].filter(([, child]) => !child.isEmpty());
    if (this.member && live.length > 0) encoded[memberMarker] = {};
    for (const [element, child] of live.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      encoded[element] = child.toFieldsV1();
    }
    return encoded;
  }

  private nodeAt(path: FieldPath): FieldSet | undefined {
    let node: FieldSet | undefined = this;
    for (const element of path) {
      node = node.children.get(element);
      if (node === undefined) return undefined;
    }
    return node;
  }

  private collect(prefix: PathElement[], into: FieldPath[]): void {
    if (this.member) into.push([...prefix]);
    for (const [element, child] of this.children) {
      prefix.push(element);
      child.collect(prefix, into);
      prefix.pop();
    }
  }

  private decode(encoded: unknown): void {
    if (encoded === null || typeof encoded !== "object" || Array.isArray(encoded)) {
      throw new TypeError(`a FieldsV1 node must be an object, not ${JSON.stringify(encoded)}`);
    }
    const entries = Object.entries(encoded as Record<string, unknown>);
    if (entries.length === 0) this.member = true;
    for (const [element, child] of entries) {
      if (element === memberMarker) {
        this.member = true;
        continue;
      }
      if (!/^[fkvi]:/.test(element))
        throw new TypeError(`"${element}" is not a FieldsV1 path element (f:, k:, v: or i:)`);
      const node = new FieldSet();
      node.decode(child);
      this.children.set(element, node);
    }
  }
}
