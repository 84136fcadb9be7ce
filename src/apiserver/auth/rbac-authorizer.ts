/**
 * The RBAC authorizer (kube-apiserver's `--authorization-mode=RBAC`): a request is allowed when a
 * ClusterRoleBinding, or a RoleBinding in the request's namespace, binds the user (by name, by one
 * of its groups, or as a service account) to a role holding a rule that covers it. Nothing is
 * ever denied outright: no covering rule is "no opinion", and the request is refused when no
 * authorizer allows it. A binding to a role that does not exist is reported in the reason.
 *
 * A ClusterRole with an aggregationRule also holds the rules of every ClusterRole its selectors
 * match (as Kubernetes' aggregation controller would have written into it), nested aggregations
 * included.
 */
import type {
  ClusterRole,
  ClusterRoleBinding,
  PolicyRule,
  Role,
  RoleBinding,
  Subject,
} from "kubernetes-types/rbac/v1.js";
import { ApiError } from "../../api/errors.ts";
import { type ResourceType, resourceForKind } from "../../api/resources.ts";
import type { Store } from "../../api/store/store.ts";
import type { JsonObject } from "../../api/validation/json-reader.ts";
import { selectorMatches } from "../../api/validation/labels.ts";
import { ruleAllows } from "./rbac-rules.ts";
import type { RequestAttributes } from "./request-attributes.ts";
import type { UserInfo } from "./user-info.ts";

export interface Decision {
  allowed: boolean;
  /** Why: the binding that allowed it, or the bindings that could not be resolved. */
  reason: string;
}

/** Every authenticated user is in this group, whatever its authenticator said. */
export const authenticatedGroup = "system:authenticated";
const serviceAccountPrefix = "system:serviceaccount:";
/** A bound on nested aggregation, so a cycle of aggregated roles cannot loop. */
const maxAggregationDepth = 10;

function rbacType(kind: "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding"): ResourceType {
  const type = resourceForKind(kind);
  if (type === undefined) throw new Error(`RBAC: kind ${kind} is not in the resource registry`);
  return type;
}

const roleType = rbacType("Role");
const clusterRoleType = rbacType("ClusterRole");
const roleBindingType = rbacType("RoleBinding");
const clusterRoleBindingType = rbacType("ClusterRoleBinding");

function appliesTo(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return subject.name === user.name;
    case "Group":
      return subject.name === authenticatedGroup || user.groups.includes(subject.name);
    case "ServiceAccount": {
      const namespace =
        subject.namespace === undefined || subject.namespace === "" ? bindingNamespace : subject.namespace;
      return user.name === `${serviceAccountPrefix}${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** describeSubject: `User "jane"`, `ServiceAccount "default/team-a"`. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind !== "ServiceAccount") return `${subject.kind} "${subject.name}"`;
  const namespace = subject.namespace === undefined || subject.namespace === "" ? bindingNamespace : subject.namespace;
  return `${subject.kind} "${subject.name}/${namespace}"`;
}

type Binding = RoleBinding | ClusterRoleBinding;

function describeBinding(binding: Binding, subject: Subject): string {
  const namespace = binding.metadata?.namespace ?? "";
  const name = binding.metadata?.name ?? "";
  const kind = namespace === "" ? "ClusterRoleBinding" : "RoleBinding";
  const shown = namespace === "" ? name : `${name}/${namespace}`;
  return `${kind} "${shown}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${describeSubject(subject, namespace)}`;
}

async function getOrUndefined<T extends Role | ClusterRole>(
  store: Store,
  type: ResourceType,
  namespace: string,
  name: string,
): Promise<T | undefined> {
  try {
    return await store.get<T & { [field: string]: unknown }>(type, namespace, name);
  } catch (error) {
    if (error instanceof ApiError && error.reason === "NotFound") return undefined;
    throw error;
  }
}

export class RbacAuthorizer {
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async authorize(user: UserInfo, request: RequestAttributes): Promise<Decision> {
    const errors: string[] = [];
    const namespace = request.resourceRequest ? request.namespace : "";
    for (const { binding, subject } of await this.bindingsOf(user, namespace)) {
      const rules = await this.rulesOfBinding(binding, errors);
      if (rules.some((rule) => ruleAllows(rule, request))) {
        return { allowed: true, reason: `RBAC: allowed by ${describeBinding(binding, subject)}` };
      }
    }
    return { allowed: false, reason: errors.length === 0 ? "" : `RBAC: ${aggregateErrors(errors)}` };
  }

  /** The rules the user holds in `namespace` (cluster-wide ones included), for SelfSubjectRulesReview. */
  async rulesOf(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> {
    const errors: string[] = [];
    const rules: PolicyRule[] = [];
    for (const { binding } of await this.bindingsOf(user, namespace))
      rules.push(...(await this.rulesOfBinding(binding, errors)));
    return { rules, errors };
  }

  /** The rules of the role a binding would point at; none when it does not exist. */
  async roleRules(kind: string, namespace: string, name: string): Promise<PolicyRule[]> {
    const probe = { metadata: { namespace }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name } };
    return [...(await this.rulesOfBinding(probe, []))];
  }

  /** The ClusterRoleBindings, then the RoleBindings of `namespace`, that bind the user, each with the subject that matched. */
  private async bindingsOf(user: UserInfo, namespace: string): Promise<{ binding: Binding; subject: Subject }[]> {
    const clusterBindings = await this.store.list<ClusterRoleBinding & JsonObject>(clusterRoleBindingType);
    const bindings: Binding[] = [...clusterBindings.items];
    if (namespace !== "") {
      bindings.push(...(await this.store.list<RoleBinding & JsonObject>(roleBindingType, { namespace })).items);
    }
    const found: { binding: Binding; subject: Subject }[] = [];
    for (const binding of bindings) {
      const bindingNamespace = binding.metadata?.namespace ?? "";
      const subject = (binding.subjects ?? []).find((candidate) => appliesTo(user, candidate, bindingNamespace));
      if (subject !== undefined) found.push({ binding, subject });
    }
    return found;
  }

  private async rulesOfBinding(binding: Binding, errors: string[]): Promise<readonly PolicyRule[]> {
    const { kind, name } = binding.roleRef;
    const namespace = binding.metadata?.namespace ?? "";
    if (kind === "Role") {
      const role = await getOrUndefined<Role>(this.store, roleType, namespace, name);
      if (role === undefined) errors.push(`role.rbac.authorization.k8s.io "${name}" not found`);
      return role?.rules ?? [];
    }
    const clusterRole = await getOrUndefined<ClusterRole>(this.store, clusterRoleType, "", name);
    if (clusterRole === undefined) {
      errors.push(`clusterrole.rbac.authorization.k8s.io "${name}" not found`);
      return [];
    }
    if (clusterRole.aggregationRule === undefined) return clusterRole.rules ?? [];
    const all = await this.store.list<ClusterRole & JsonObject>(clusterRoleType);
    return aggregatedRules(clusterRole, all.items, 0);
  }
}

/** A ClusterRole's own rules and those of the ClusterRoles its aggregation rule selects. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[], depth: number): PolicyRule[] {
  const rules = [...(role.rules ?? [])];
  const selectors = role.aggregationRule?.clusterRoleSelectors ?? [];
  if (selectors.length === 0 || depth >= maxAggregationDepth) return rules;
  for (const candidate of all) {
    if (candidate.metadata?.name === role.metadata?.name) continue;
    const labels = candidate.metadata?.labels;
    if (!selectors.some((selector) => selectorMatches(selector as JsonObject, labels))) continue;
    for (const rule of aggregatedRules(candidate, all, depth + 1)) {
      if (!rules.some((held) => sameRule(held, rule))) rules.push(rule);
    }
  }
  return rules;
}

function sameRule(a: PolicyRule, b: PolicyRule): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** utilerrors.NewAggregate's text: one error as it is, several in brackets. */
function aggregateErrors(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]`;
}
