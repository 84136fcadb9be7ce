/**
 * Whether one RBAC PolicyRule covers a request (rbac's RuleAllows): the verb, the API group, the
 * resource (`pods`, `pods/log`, `*`, or `*\/scale` for one subresource of every resource), the
 * object's name when the rule lists names; or, for a non-resource request, the path (`/healthz`,
 * or a prefix ending in `*`).
 */
import type { PolicyRule } from "kubernetes-types/rbac/v1.js";
import type { RequestAttributes } from "./request-attributes.ts";

const all = "*";

function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.includes(all) || rule.verbs.includes(verb);
}

function groupMatches(rule: PolicyRule, group: string): boolean {
  const groups = rule.apiGroups ?? [];
  return groups.includes(all) || groups.includes(group);
}

function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  return (rule.resources ?? []).some(
    (candidate) =>
      candidate === all || candidate === combined || (subresource !== "" && candidate === `*/${subresource}`),
  );
}

function nameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (candidate) =>
      candidate === all ||
      candidate === path ||
      (candidate.endsWith(all) && path.startsWith(candidate.slice(0, -all.length))),
  );
}

export function ruleAllows(rule: PolicyRule, request: RequestAttributes): boolean {
  if (!verbMatches(rule, request.verb)) return false;
  if (!request.resourceRequest) return urlMatches(rule, request.path);
  return (
    groupMatches(rule, request.group) &&
    resourceMatches(rule, request.resource, request.subresource) &&
    nameMatches(rule, request.name)
  );
}
