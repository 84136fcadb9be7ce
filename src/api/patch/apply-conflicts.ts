/**
 * The 409 of a server-side apply that would change fields another manager owns, worded as
 * kube-apiserver words it:
 *   Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1 at <time>: .spec.replicas
 * with one `FieldManagerConflict` cause per field.
 */
import { ApiError, type FieldCause } from "../errors.ts";
import { type FieldPath, printPath } from "./field-set.ts";
import { describeManager, type ManagerEntry } from "./managed-fields.ts";

export interface Conflict {
  owner: ManagerEntry;
  path: FieldPath;
}

function conflictMessage(conflicts: readonly Conflict[]): string {
  const [only] = conflicts;
  if (conflicts.length === 1 && only !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${describeManager(only.owner)}: ${printPath(only.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const conflict of conflicts) {
    const manager = describeManager(conflict.owner);
    byManager.set(manager, [...(byManager.get(manager) ?? []), printPath(conflict.path)]);
  }
  const lines: string[] = [];
  for (const manager of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${manager}:`);
    for (const path of byManager.get(manager) ?? []) lines.push(`- ${path}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`;
}

export function applyConflictError(conflicts: readonly Conflict[]): ApiError {
  const causes: FieldCause[] = conflicts.map((conflict) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${describeManager(conflict.owner)}`,
    field: printPath(conflict.path),
  }));
  return new ApiError("Conflict", conflictMessage(conflicts), { causes });
}
