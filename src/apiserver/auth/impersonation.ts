/**
 * Impersonation (kube-apiserver's impersonation filter): a request with `Impersonate-User` (and
 * optionally `Impersonate-Group`, repeatable) is served as that user, when the sender may
 * `impersonate` the user (`users`, or `serviceaccounts` for `system:serviceaccount:<ns>:<name>`)
 * and each group (`groups`). `kubectl --as` and `--as-group` send these headers.
 */
import type { IncomingMessage } from "node:http";
import { badRequest } from "../../api/errors.ts";
import { forbiddenRequest } from "./forbidden.ts";
import type { RequestAttributes } from "./request-attributes.ts";
import type { UserInfo } from "./user-info.ts";

const userHeader = "impersonate-user";
const groupHeader = "impersonate-group";
const serviceAccountPrefix = "system:serviceaccount:";
const authenticatedGroup = "system:authenticated";
const unauthenticatedGroup = "system:unauthenticated";

/** May `user` do this? (The server's authorizers in union.) */
export type Allows = (user: UserInfo, attributes: RequestAttributes) => Promise<boolean>;

function headerValues(request: IncomingMessage, name: string): string[] {
  const value = request.headers[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(",")).map((item) => item.trim());
}

function impersonating(verbTarget: { resource: string; namespace: string; name: string }): RequestAttributes {
  return {
    resourceRequest: true,
    path: "",
    verb: "impersonate",
    group: "",
    subresource: "",
    ...verbTarget,
  };
}

/** The target of impersonating `name`: a service account in its namespace, or a user. */
function userTarget(name: string): { resource: string; namespace: string; name: string } {
  if (name.startsWith(serviceAccountPrefix)) {
    const [namespace = "", account = ""] = name.slice(serviceAccountPrefix.length).split(":");
    if (namespace !== "" && account !== "") return { resource: "serviceaccounts", namespace, name: account };
  }
  return { resource: "users", namespace: "", name };
}

/** The user the request is served as: the sender, or whom it impersonates (a 403 when it may not). */
export async function impersonatedUser(request: IncomingMessage, sender: UserInfo, allows: Allows): Promise<UserInfo> {
  const [name] = headerValues(request, userHeader);
  const groups = headerValues(request, groupHeader).filter((group) => group !== "");
  if (name === undefined || name === "") {
    if (groups.length > 0)
      throw badRequest(`requested impersonation of groups ${JSON.stringify(groups)} without impersonating a user`);
    return sender;
  }
  const targets = [userTarget(name), ...groups.map((group) => ({ resource: "groups", namespace: "", name: group }))];
  for (const target of targets) {
    const attributes = impersonating(target);
    if (!(await allows(sender, attributes))) throw forbiddenRequest(sender.name, attributes, "");
  }
  const account = userTarget(name);
  const accountGroups =
    account.resource === "serviceaccounts"
      ? ["system:serviceaccounts", `system:serviceaccounts:${account.namespace}`]
      : [];
  const all = [...groups, ...accountGroups];
  if (!all.includes(authenticatedGroup) && !all.includes(unauthenticatedGroup)) all.push(authenticatedGroup);
  return { name, uid: "", groups: all };
}
