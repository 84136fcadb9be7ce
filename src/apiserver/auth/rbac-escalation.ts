/**
 * RBAC's escalation check (kube-apiserver's role and binding storage): a user may create or update
 * a Role or ClusterRole only with rules it holds itself, and bind a role only when it holds the
 * role's rules, unless it may `escalate` that role (or `bind` it, for a binding), or is in
 * `system:masters`. Otherwise the write is refused before the store is touched, naming each rule
 * the user does not hold, one verb and resource each, as Kubernetes' CompactString prints them.
 */
import type { ClusterRole, PolicyRule, Role, RoleBinding } from "kubernetes-types/rbac/v1.js";
import type { KObject } from "../../api/objects.ts";
import type { ResourceType } from "../../api/resources.ts";
import { ForwardingStore } from "../../api/store/forwarding-store.ts";
import type { CreateOptions, Store, UpdateOptions } from "../../api/store/store.ts";
import type { ServerAuthorizer } from "./authorizer.ts";
import { forbidden } from "./forbidden.ts";
import type { RequestAttributes } from "./request-attributes.ts";
import type { UserInfo } from "./user-info.ts";

/** One verb on one resource (or URL) of one group, maybe one name: the unit Kubernetes compares rules in. */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const parts: PolicyRule[] = [];
  for (const verb of rule.verbs) {
    for (const url of rule.nonResourceURLs ?? []) parts.push({ verbs: [verb], nonResourceURLs: [url] });
    for (const group of rule.apiGroups ?? []) {
      for (const resource of rule.resources ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) parts.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        for (const name of names) {
          parts.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        }
      }
    }
  }
  return parts;
}

const all = "*";

function listCovers(owner: readonly string[] | undefined, wanted: string): boolean {
  return (owner ?? []).includes(all) || (owner ?? []).includes(wanted);
}

/** An owner's URLs hold a URL: `*`, the URL itself, or a prefix ending in `*` (nonResourceURLCovers). */
function urlCovers(owned: readonly string[], url: string): boolean {
  return owned.some(
    (candidate) =>
      candidate === all || candidate === url || (candidate.endsWith(all) && url.startsWith(candidate.slice(0, -1))),
  );
}

/** Whether an owner rule holds one broken-down rule (ruleCovers). */
function ruleCovers(owner: PolicyRule, part: PolicyRule): boolean {
  const verb = part.verbs[0] ?? "";
  if (!listCovers(owner.verbs, verb)) return false;
  const url = part.nonResourceURLs?.[0];
  if (url !== undefined) return urlCovers(owner.nonResourceURLs ?? [], url);
  const group = part.apiGroups?.[0] ?? "";
  const resource = part.resources?.[0] ?? "";
  const name = part.resourceNames?.[0];
  if (!listCovers(owner.apiGroups, group)) return false;
  const slash = resource.indexOf("/");
  const subresourceWildcard = slash >= 0 && (owner.resources ?? []).includes(`*${resource.slice(slash)}`);
  if (!listCovers(owner.resources, resource) && !subresourceWildcard) return false;
  const ownerNames = owner.resourceNames ?? [];
  return ownerNames.length === 0 || (name !== undefined && ownerNames.includes(name));
}

function goQuotedList(values: readonly string[]): string {
  return `[${values.map((value) => JSON.stringify(value)).join(" ")}]`;
}

/** rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`. */
function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuotedList(rule.apiGroups ?? [])}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuotedList(rule.resources ?? [])}`);
  if ((rule.nonResourceURLs ?? []).length > 0)
    parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs ?? [])}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuotedList(rule.resourceNames ?? [])}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${goQuotedList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}

/** The broken-down rules of `wanted` that none of `held` covers, as sorted CompactStrings. */
export function missingRules(held: readonly PolicyRule[], wanted: readonly PolicyRule[]): string[] {
  const missing = new Set<string>();
  for (const part of wanted.flatMap(breakdown)) {
    if (!held.some((owner) => ruleCovers(owner, part))) missing.add(compactString(part));
  }
  return [...missing].sort();
}

function isRbacKind(kind: string): boolean {
  return kind === "Role" || kind === "ClusterRole" || kind === "RoleBinding" || kind === "ClusterRoleBinding";
}

/** The server's store as one user's RBAC writes reach it: roles and bindings checked for escalation. */
export class RbacEscalationStore extends ForwardingStore {
  private readonly user: UserInfo;
  private readonly authorizer: ServerAuthorizer;

  constructor(inner: Store, user: UserInfo, authorizer: ServerAuthorizer) {
    super(inner);
    this.user = user;
    this.authorizer = authorizer;
  }

  override async create<T extends KObject>(type: ResourceType, object: T, options?: CreateOptions): Promise<T> {
    if (isRbacKind(type.kind)) await this.confirmNoEscalation(type, object);
    return this.inner.create(type, object, options);
  }

  override async update<T extends KObject>(type: ResourceType, object: T, options?: UpdateOptions): Promise<T> {
    if (isRbacKind(type.kind)) await this.confirmNoEscalation(type, object);
    return this.inner.update(type, object, options);
  }

  private async allowedTo(verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
    const attributes: RequestAttributes = {
      resourceRequest: true,
      path: "",
      verb,
      group: "rbac.authorization.k8s.io",
      resource,
      subresource: "",
      namespace,
      name,
    };
    return (await this.authorizer.authorize(this.user, attributes)).allowed;
  }

  private async confirmNoEscalation(type: ResourceType, object: KObject): Promise<void> {
    const namespace = object.metadata?.namespace ?? "";
    const name = object.metadata?.name ?? "";
    let wanted: readonly PolicyRule[];
    if (type.kind === "Role" || type.kind === "ClusterRole") {
      if (await this.allowedTo("escalate", type.plural, namespace, name)) return;
      wanted = (object as unknown as Role | ClusterRole).rules ?? [];
    } else {
      const ref = (object as unknown as RoleBinding).roleRef;
      const roleResource = ref?.kind === "Role" ? "roles" : "clusterroles";
      if (ref === undefined || (await this.allowedTo("bind", roleResource, namespace, ref.name))) return;
      wanted = await this.referencedRules(ref.kind, namespace, ref.name);
    }
    const held = await this.authorizer.rulesOf(this.user, namespace);
    const missing = missingRules(held.rules, wanted);
    if (missing.length === 0) return;
    const authenticated = "system:authenticated";
    const groups = goQuotedList(
      this.user.groups.includes(authenticated) ? this.user.groups : [...this.user.groups, authenticated],
    );
    throw forbidden(
      type,
      name,
      `user "${this.user.name}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${missing.join("\n")}`,
    );
  }

  private referencedRules(kind: string, namespace: string, name: string): Promise<readonly PolicyRule[]> {
    return this.authorizer.roleRules(kind, namespace, name);
  }
}
