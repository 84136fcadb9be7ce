/**
 * The names a scenario declares (its nodes, CSI drivers and StorageClasses) and the places it uses
 * them (a cordon, a fault's `node`, a condition's `on node-b`, a claim's `storageClassName`), so a
 * misspelt name is reported when the file is read, at the line that uses it, instead of as a failed
 * step or a condition that never holds minutes into the run. The readers record declarations and
 * uses as they go; `checkNames` compares them once everything is read.
 */
import { closestNames } from "./closest-names.ts";
import { formatDuration } from "./duration.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

type NameKind = "node" | "driver" | "storageClass";

interface Declaration {
  readonly name: string;
  /** When it exists: 0 for the cluster section, the step's time for `addNode`. */
  readonly fromMs: number;
}

interface Use {
  readonly kind: NameKind;
  readonly name: string;
  readonly path: FieldPath;
  /** Run time of the step that uses it; undefined for expectations, which may name a node added later. */
  readonly atMs?: number;
  /** Where in a condition the name is, for the message: `at column 31`. */
  readonly column?: number;
}

const kindWords: Readonly<Record<NameKind, string>> = {
  node: "node",
  driver: "CSI driver",
  storageClass: "StorageClass",
};

const listWords: Readonly<Record<NameKind, string>> = {
  node: "nodes",
  driver: "the scenario's csiDrivers",
  storageClass: "StorageClasses",
};

export class ScenarioNames {
  private readonly declarations = new Map<NameKind, Declaration[]>();
  private readonly uses: Use[] = [];

  declare(kind: NameKind, name: string, fromMs = 0): void {
    const list = this.declarations.get(kind) ?? [];
    list.push({ name, fromMs });
    this.declarations.set(kind, list);
  }

  use(use: Use): void {
    this.uses.push(use);
  }

  /** Reports every use of a name that is not declared (or not yet, for a timeline step). */
  check(source: YamlSource): void {
    for (const use of this.uses) {
      const declared = this.declarations.get(use.kind) ?? [];
      // StorageClasses are checked only when the scenario declares some: a claim naming a class
      // that does not exist is a story worth telling (it stays Pending), not a typo by itself.
      if (use.kind === "storageClass" && declared.length === 0) continue;
      const problem = this.problemOf(use, declared);
      if (problem !== undefined) source.report(use.path, problem);
    }
  }

  private problemOf(use: Use, declared: readonly Declaration[]): string | undefined {
    const column = use.column === undefined ? "" : ` at column ${use.column}`;
    const matches = declared.filter((declaration) => declaration.name === use.name);
    if (matches.length === 0) {
      const names = [...new Set(declared.map((declaration) => declaration.name))];
      const known = names.length === 0 ? "none are declared" : `${listWords[use.kind]}: ${names.join(", ")}`;
      const suggestion = names.length === 0 ? "" : `; did you mean ${closestNames(use.name, names)[0]}?`;
      return `no ${kindWords[use.kind]} named "${use.name}"${column} (${known}${suggestion})`;
    }
    const atMs = use.atMs;
    if (atMs !== undefined && matches.every((declaration) => declaration.fromMs > atMs)) {
      const joinsMs = Math.min(...matches.map((declaration) => declaration.fromMs));
      return `${kindWords[use.kind]} "${use.name}" is used before it joins the cluster (its addNode step is at ${formatDuration(joinsMs)})`;
    }
    return undefined;
  }
}
