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
    this.nodeFor(path).member = true;
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

  /** The node at `path`, created (with its parents) when missing; a builder's way to add below one place. */
  nodeFor(path: FieldPath): FieldSet {
    let node: FieldSet = this;
    for (const element of path) node = node.child(element);
    return node;
  }

  /** The child at `element`, created when missing. */
  child(element: PathElement): FieldSet {
    let child = this.children.get(element);
    if (child === undefined) {
      child = new FieldSet();
      this.children.set(element, child);
    }
    return child;
  }

  /** Makes this node's own path a member. */
  markMember(): void {
    this.member = true;
  }

  // The set operations below walk both trees together rather than listing and re-inserting every
  // path: a create's field set has a few hundred paths and each write computes several of these.
  // Children keep the order the path-by-path versions gave them (this set's first, then the
  // other's), and subtrees without members are left out, as those versions left them out.

  union(other: FieldSet): FieldSet {
    const result = this.copy();
    result.addAll(other);
    return result;
  }

  difference(other: FieldSet): FieldSet {
    return this.differenceFrom(other) ?? new FieldSet();
  }

  intersection(other: FieldSet): FieldSet {
    return this.intersectionWith(other) ?? new FieldSet();
  }

  equals(other: FieldSet): boolean {
    if (this.member !== other.member) return false;
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      if (theirs === undefined ? !child.isEmpty() : !child.equals(theirs)) return false;
    }
    for (const [element, theirs] of other.children) {
      if (!this.children.has(element) && !theirs.isEmpty()) return false;
    }
    return true;
  }

  copy(): FieldSet {
    return this.copyMembers() ?? new FieldSet();
  }

  /** The FieldsV1 JSON of the set. */
  toFieldsV1(): Record<string, unknown> {
    return this.encode() ?? {};
  }

  /** The FieldsV1 JSON of this node, or undefined when it holds no member. */
  private encode(): Record<string, unknown> | undefined {
    const live: [PathElement, Record<string, unknown>][] = [];
    for (const [element, child] of this.children) {
      const encoded = child.encode();
      if (encoded !== undefined) live.push([element, encoded]);
    }
    if (live.length === 0) return this.member ? {} : undefined;
    const encoded: Record<string, unknown> = {};
    if (this.member) encoded[memberMarker] = {};
    for (const [element, child] of live.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) encoded[element] = child;
    return encoded;
  }

  /** A copy holding only the subtrees with members; undefined when there are none. */
  private copyMembers(): FieldSet | undefined {
    let result: FieldSet | undefined;
    for (const [element, child] of this.children) {
      const copied = child.copyMembers();
      if (copied === undefined) continue;
      result ??= new FieldSet();
      result.children.set(element, copied);
    }
    if (this.member) {
      result ??= new FieldSet();
      result.member = true;
    }
    return result;
  }

  private addAll(other: FieldSet): void {
    if (other.member) this.member = true;
    for (const [element, theirs] of other.children) {
      const mine = this.children.get(element);
      if (mine !== undefined) {
        mine.addAll(theirs);
        continue;
      }
      const copied = theirs.copyMembers();
      if (copied !== undefined) this.children.set(element, copied);
    }
  }

  private differenceFrom(other: FieldSet | undefined): FieldSet | undefined {
    if (other === undefined) return this.copyMembers();
    let result: FieldSet | undefined;
    for (const [element, child] of this.children) {
      const kept = child.differenceFrom(other.children.get(element));
      if (kept === undefined) continue;
      result ??= new FieldSet();
      result.children.set(element, kept);
    }
    if (this.member && !other.member) {
      result ??= new FieldSet();
      result.member = true;
    }
    return result;
  }

  private intersectionWith(other: FieldSet): FieldSet | undefined {
    let result: FieldSet | undefined;
    for (const [element, child] of this.children) {
      const theirs = other.children.get(element);
      const common = theirs === undefined ? undefined : child.intersectionWith(theirs);
      if (common === undefined) continue;
      result ??= new FieldSet();
      result.children.set(element, common);
    }
    if (this.member && other.member) {
      result ??= new FieldSet();
      result.member = true;
    }
    return result;
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
