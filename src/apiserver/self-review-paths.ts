/**
 * The review resources a user sends about itself: SelfSubjectAccessReview and
 * SelfSubjectRulesReview (`kubectl auth can-i`), SelfSubjectReview (`kubectl auth whoami`). They
 * are create-only and stored nowhere (as is SubjectAccessReview, the same question about any user); discovery lists them in their groups as kube-apiserver does.
 */
export interface ReviewResource {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
  /** About the sender itself (any authenticated user may ask); SubjectAccessReview asks about anyone, and needs RBAC's `create`. */
  self: boolean;
}

export const selfReviewResources: readonly ReviewResource[] = [
  {
    group: "authentication.k8s.io",
    version: "v1",
    plural: "selfsubjectreviews",
    singular: "selfsubjectreview",
    kind: "SelfSubjectReview",
    self: true,
  },
  {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "selfsubjectaccessreviews",
    singular: "selfsubjectaccessreview",
    kind: "SelfSubjectAccessReview",
    self: true,
  },
  {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "selfsubjectrulesreviews",
    singular: "selfsubjectrulesreview",
    kind: "SelfSubjectRulesReview",
    self: true,
  },
  {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "subjectaccessreviews",
    singular: "subjectaccessreview",
    kind: "SubjectAccessReview",
    self: false,
  },
];

export const reviewVerbs: readonly string[] = ["create"];

export function reviewResourceAt(pathname: string): ReviewResource | undefined {
  return selfReviewResources.find((r) => pathname === `/apis/${r.group}/${r.version}/${r.plural}`);
}

export function isSelfReviewPath(pathname: string): boolean {
  return reviewResourceAt(pathname)?.self === true;
}
