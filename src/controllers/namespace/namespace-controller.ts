/**
 * The namespace controller (pkg/controller/namespace): a namespace being deleted (phase
 * Terminating, `kubernetes` in spec.finalizers) has everything in it deleted, reports progress in
 * its conditions, and once nothing is left has its `kubernetes` finalizer removed through the
 * `finalize` subresource, after which the API removes it. Content that is slow to go (a pod's
 * grace period, a claim's protection finalizer) makes the namespace come back with backoff, from
 * 5 ms up to once a minute.
 */
import type { Lister } from "../../api/informer/lister.ts";
import type { HandlerRegistration } from "../../api/informer/shared-informer.ts";
import type { Namespace } from "../../api/objects.ts";
import { namespaceFinalizerKubernetes } from "../../api/store/namespace-rules.ts";
import { formatRfc3339 } from "../../runtime/clock.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import type { Logger } from "../../runtime/logger.ts";
import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";
import {
  namespaceControllerName,
  namespaceRetryBaseDelayMs,
  namespaceRetryMaxDelayMs,
  namespaceWorkerCount,
} from "./constants.ts";
import { type ContentLeft, deleteAllContent, isEmpty } from "./content-deleter.ts";
import { mergeConditions, namespaceConditions } from "./namespace-conditions.ts";

/** The overall retry budget of client-go's bucket limiter: 10 per second, bursts of 100. */
const retryBucketQps = 10;
const retryBucketBurst = 100;

/** Thrown to bring a namespace back later: its content has not all gone yet. */
class ContentRemaining extends Error {}

export class NamespaceController implements Controller {
  readonly name = namespaceControllerName;
  private readonly context: ControllerContext;
  private readonly logger: Logger;
  private readonly queue: WorkQueue<string>;
  private readonly namespaces: Lister<Namespace>;
  private registration: HandlerRegistration | undefined;
  private running: Promise<void> | undefined;

  constructor(context: ControllerContext) {
    this.context = context;
    this.logger = context.logger.with({ component: namespaceControllerName });
    this.queue = new WorkQueue({
      name: "namespace",
      clock: context.clock,
      rateLimiter: new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>(namespaceRetryBaseDelayMs, namespaceRetryMaxDelayMs),
        new BucketRateLimiter<string>(retryBucketQps, retryBucketBurst, context.clock),
      ),
    });
    this.namespaces = context.informers.informerFor("Namespace").lister;
  }

  start(): void {
    if (this.running !== undefined) throw new Error(`${this.name}: start() called twice`);
    const onNamespace = (namespace: Namespace) => {
      if (namespace.metadata?.deletionTimestamp) this.queue.add(namespace.metadata.name ?? "");
    };
    this.registration = this.context.informers
      .informerFor("Namespace")
      .addEventHandler({ onAdd: onNamespace, onUpdate: (_old, namespace) => onNamespace(namespace) });
    this.running = runWorkers(
      this.queue,
      namespaceWorkerCount,
      (name) => this.syncNamespace(name),
      (name, error) => {
        if (error instanceof ContentRemaining) this.logger.debug("namespace still has content", { name });
        else
          this.logger.warn("could not delete the namespace's content; retrying", { name, error: errorMessage(error) });
      },
    );
  }

  async stop(): Promise<void> {
    this.registration?.remove();
    this.queue.shutDown();
    await this.running;
  }

  private async syncNamespace(name: string): Promise<void> {
    const namespace = this.namespaces.get("", name);
    if (namespace === undefined || !namespace.metadata?.deletionTimestamp) return;
    if (!(namespace.spec?.finalizers ?? []).includes(namespaceFinalizerKubernetes)) return;
    const left = await deleteAllContent(this.context.client, name);
    await this.reportConditions(name, left);
    if (!isEmpty(left)) throw new ContentRemaining(`namespace ${name} still has content`);
    await this.finalize(name);
    this.logger.info("namespace emptied and finalized", { name });
  }

  private async reportConditions(name: string, left: ContentLeft): Promise<void> {
    const now = formatRfc3339(this.context.clock.now());
    await this.context.client.namespaces.mutate(
      "",
      name,
      (draft) => {
        const existing = draft.status?.conditions ?? [];
        draft.status = {
          ...draft.status,
          phase: "Terminating",
          conditions: mergeConditions(existing, namespaceConditions(left, now)),
        };
      },
      { subresource: "status" },
    );
  }

  /** Removes the `kubernetes` finalizer (PUT namespaces/<name>/finalize); the API then removes the namespace. */
  private async finalize(name: string): Promise<void> {
    const current = await this.context.client.namespaces.get("", name);
    const finalizers = (current.spec?.finalizers ?? []).filter((f) => f !== namespaceFinalizerKubernetes);
    await this.context.client.namespaces.update(
      { ...current, spec: { ...current.spec, finalizers } },
      { subresource: "finalize" },
    );
  }
}
