/**
 * The review resources a user sends about itself: SelfSubjectAccessReview and
 * SelfSubjectRulesReview (`kubectl auth can-i`), SelfSubjectReview (`kubectl auth whoami`). They
 * are create-only and stored nowhere; discovery lists them in their groups as kube-apiserver does.
 */
export interface ReviewResource {
  group: string;
  version: string;
  plural: string;
  singular: string;
  kind: string;
}

export const selfReviewResources: readonly ReviewResource[] = [
  {
    group: "authentication.k8s.io",
    version: "v1",
    plural: "selfsubjectreviews",
    singular: "selfsubjectreview",
    kind: "SelfSubjectReview",
  },
  {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "selfsubjectaccessreviews",
    singular: "selfsubjectaccessreview",
    kind: "SelfSubjectAccessReview",
  },
  {
    group: "authorization.k8s.io",
    version: "v1",
    plural: "selfsubjectrulesreviews",
    singular: "selfsubjectrulesreview",
    kind: "SelfSubjectRulesReview",
  },
];

export const reviewVerbs: readonly string[] = ["create"];

export function reviewResourceAt(pathname: string): ReviewResource | undefined {
  return selfReviewResources.find((r) => pathname === `/apis/${r.group}/${r.version}/${r.plural}`);
}

export function isSelfReviewPath(pathname: string): boolean {
  return reviewResourceAt(pathname) !== undefined;
}
