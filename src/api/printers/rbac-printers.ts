/**
 * The columns of `kubectl get roles`, `clusterroles` (name and creation time, as RFC 3339) and of
 * `rolebindings`, `clusterrolebindings` (the role as `Kind/name`, and with `-o wide` the users,
 * groups and service accounts bound).
 */
import type { Subject } from "kubernetes-types/rbac/v1.js";
import { formatRfc3339, parseRfc3339 } from "../../runtime/clock.ts";
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter } from "./table-types.ts";

const createdAtColumn = column("Created At", ageColumn.description, { type: "date" });

function createdAt(timestamp: string | undefined): string {
  return timestamp === undefined ? "" : formatRfc3339(parseRfc3339(timestamp));
}

function rolePrinter<T extends Role | ClusterRole>(): ObjectPrinter<T> {
  return {
    columns: [nameColumn, createdAtColumn],
    row(role) {
      return { cells: [role.metadata?.name ?? "", createdAt(role.metadata?.creationTimestamp)] };
    },
  };
}

export const roleObjectPrinter: ObjectPrinter<Role> = rolePrinter<Role>();
export const clusterRolePrinter: ObjectPrinter<ClusterRole> = rolePrinter<ClusterRole>();

/** Each kind's subjects, as kubectl joins them: `a, b`; service accounts as `namespace:name`. */
function subjectsText(subjects: readonly Subject[], kind: Subject["kind"]): string {
  return subjects
    .filter((subject) => subject.kind === kind)
    .map((subject) => (kind === "ServiceAccount" ? `${subject.namespace ?? ""}:${subject.name}` : subject.name))
    .join(", ");
}

function bindingPrinter<T extends RoleBinding | ClusterRoleBinding>(): ObjectPrinter<T> {
  return {
    columns: [
      nameColumn,
      column(
        "Role",
        "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
      ),
      ageColumn,
      column("Users", "Users in the roleBinding", { priority: 1 }),
      column("Groups", "Groups in the roleBinding", { priority: 1 }),
      column("ServiceAccounts", "ServiceAccounts in the roleBinding", { priority: 1 }),
    ],
    row(binding, nowMs) {
      const subjects = binding.subjects ?? [];
      return {
        cells: [
          binding.metadata?.name ?? "",
          `${binding.roleRef.kind}/${binding.roleRef.name}`,
          ageSince(binding.metadata?.creationTimestamp, nowMs),
          subjectsText(subjects, "User"),
          subjectsText(subjects, "Group"),
          subjectsText(subjects, "ServiceAccount"),
        ],
      };
    },
  };
}

export const roleBindingPrinter: ObjectPrinter<RoleBinding> = bindingPrinter<RoleBinding>();
export const clusterRoleBindingPrinter: ObjectPrinter<ClusterRoleBinding> = bindingPrinter<ClusterRoleBinding>();
