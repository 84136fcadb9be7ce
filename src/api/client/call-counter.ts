/**
 * Counts API calls by verb and resource, the way kube-apiserver's request metrics do
 * (`apiserver_request_total{verb, resource, subresource}`). A client increments it once per request
 * it would send to an API server, so a test can prove that an idle reconcile pass costs nothing.
 */

export type ApiVerb = "get" | "list" | "watch" | "create" | "update" | "patch" | "delete";

const API_VERBS: readonly ApiVerb[] = ["get", "list", "watch", "create", "update", "patch", "delete"];

/** One counted call site: `resource` is the plural name, with `/status` for the status subresource. */
interface CallCount {
  verb: ApiVerb;
  resource: string;
  count: number;
}

export class CallCounter {
  /** verb → resource → calls. Two levels so `count(verb)` never parses keys. */
  private readonly calls = new Map<ApiVerb, Map<string, number>>();

  record(verb: ApiVerb, resource: string): void {
    let byResource = this.calls.get(verb);
    if (byResource === undefined) {
      byResource = new Map();
      this.calls.set(verb, byResource);
    }
    byResource.set(resource, (byResource.get(resource) ?? 0) + 1);
  }

  /** Calls of `verb` (every verb when omitted) on `resource` (every resource when omitted). */
  count(verb?: ApiVerb, resource?: string): number {
    let total = 0;
    for (const [countedVerb, byResource] of this.calls) {
      if (verb !== undefined && countedVerb !== verb) continue;
      if (resource !== undefined) total += byResource.get(resource) ?? 0;
      else for (const calls of byResource.values()) total += calls;
    }
    return total;
  }

  /** Every call counted so far. */
  total(): number {
    return this.count();
  }

  /** The non-zero counts, verbs in `API_VERBS` order and resources alphabetically, for messages and reports. */
  snapshot(): CallCount[] {
    const counts: CallCount[] = [];
    for (const verb of API_VERBS) {
      const byResource = this.calls.get(verb);
      if (byResource === undefined) continue;
      for (const resource of [...byResource.keys()].sort()) {
        counts.push({ verb, resource, count: byResource.get(resource) ?? 0 });
      }
    }
    return counts;
  }

  /** `get pods=3, update pods/status=1`: what a failed "no API calls" assertion should print. */
  describe(): string {
    const parts = this.snapshot().map((c) => `${c.verb} ${c.resource}=${c.count}`);
    return parts.length === 0 ? "no API calls" : parts.join(", ");
  }

  reset(): void {
    this.calls.clear();
  }
}
