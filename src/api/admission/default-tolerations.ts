/**
 * Kubernetes' DefaultTolerationSeconds admission plugin: on pod create, a pod that does not already
 * tolerate `node.kubernetes.io/not-ready:NoExecute` (or `unreachable:NoExecute`) gets a toleration
 * for it limited to 300 s. That is why a pod on a dead node is evicted about five minutes after the
 * node is tainted, not at once.
 *
 * A toleration with an empty key (every taint) or an empty effect (every effect) counts as already
 * tolerating, exactly as the plugin decides. The store's create path applies it (`admit-create.ts`);
 * the taint eviction controller still reads `effectiveTolerations`, so pods stored before admission
 * existed (an old SQLite file) are evicted on Kubernetes' timing too.
 */
import type { Pod } from "../objects.ts";
import { type Toleration, taintNodeNotReady, taintNodeUnreachable } from "../scheduling/taints.ts";

export interface DefaultTolerationSeconds {
  /** `--default-not-ready-toleration-seconds` (Timers.defaultNotReadyTolerationSeconds). */
  notReadySeconds: number;
  /** `--default-unreachable-toleration-seconds` (Timers.defaultUnreachableTolerationSeconds). */
  unreachableSeconds: number;
}

function coversNoExecute(toleration: Toleration, key: string): boolean {
  const keyMatches = !toleration.key || toleration.key === key;
  const effectMatches = !toleration.effect || toleration.effect === "NoExecute";
  return keyMatches && effectMatches;
}

function defaultToleration(key: string, seconds: number): Toleration {
  return { key, operator: "Exists", effect: "NoExecute", tolerationSeconds: seconds };
}

/** The pod's tolerations with the two defaults appended where the pod lacks them (a new array). */
export function effectiveTolerations(
  tolerations: readonly Toleration[] | undefined,
  seconds: DefaultTolerationSeconds,
): Toleration[] {
  const result = [...(tolerations ?? [])];
  if (!result.some((toleration) => coversNoExecute(toleration, taintNodeNotReady))) {
    result.push(defaultToleration(taintNodeNotReady, seconds.notReadySeconds));
  }
  if (!result.some((toleration) => coversNoExecute(toleration, taintNodeUnreachable))) {
    result.push(defaultToleration(taintNodeUnreachable, seconds.unreachableSeconds));
  }
  return result;
}

/** The admission step for a pod being created: the same pod (unchanged) or a copy with the defaults added. */
export function withDefaultTolerations(pod: Pod, seconds: DefaultTolerationSeconds): Pod {
  const tolerations = pod.spec?.tolerations;
  const effective = effectiveTolerations(tolerations, seconds);
  if (pod.spec === undefined || effective.length === (tolerations ?? []).length) return pod;
  // Object.assign, not a spread: adding a key to a spread copy is slow in V8, and every pod create comes here.
  const spec: NonNullable<Pod["spec"]> = Object.assign({}, pod.spec);
  spec.tolerations = effective;
  return { ...pod, spec };
}
