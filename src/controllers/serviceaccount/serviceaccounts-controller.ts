/**
 * The service accounts controller (`pkg/controller/serviceaccount`): every active namespace has a
 * ServiceAccount named `default`, created when the namespace appears and again when someone
 * deletes it. A namespace that is terminating gets none (its contents are going away).
 */
import { isAlreadyExists } from "../../api/errors.ts";
import type { SharedInformer } from "../../api/informer/shared-informer.ts";
import type { Namespace, ServiceAccount } from "../../api/objects.ts";
import { errorMessage } from "../../runtime/error-message.ts";
import { defaultControllerRateLimiter } from "../../runtime/rate-limiter.ts";
import { runWorkers } from "../../runtime/run-workers.ts";
import { WorkQueue } from "../../runtime/workqueue.ts";
import type { Controller, ControllerContext } from "../controller-context.ts";

const serviceAccountsControllerName = "serviceaccount-controller";
/** The account every namespace gets, and the one pods run as when they name none. */
const defaultServiceAccountName = "default";
/** `--concurrent-serviceaccount-syncs`' default. */
const serviceAccountSyncWorkerCount = 1;

export class ServiceAccountsController implements Controller {
  readonly name = serviceAccountsControllerName;
  private readonly context: ControllerContext;
  private readonly namespaces: SharedInformer<Namespace>;
  private readonly accounts: SharedInformer<ServiceAccount>;
  private readonly queue: WorkQueue<string>;
  private readonly removers: (() => void)[] = [];
  private workers: Promise<void> | undefined;

  constructor(context: ControllerContext) {
    this.context = context;
    this.namespaces = context.informers.informerFor("Namespace");
    this.accounts = context.informers.informerFor("ServiceAccount");
    this.queue = new WorkQueue<string>({
      name: this.name,
      clock: context.clock,
      rateLimiter: defaultControllerRateLimiter(context.clock),
    });
  }

  start(): void {
    const enqueueNamespace = (namespace: Namespace) => this.queue.add(namespace.metadata?.name ?? "");
    const namespaces = this.namespaces.addEventHandler({
      onAdd: enqueueNamespace,
      onUpdate: (_old, ns) => enqueueNamespace(ns),
    });
    const accounts = this.accounts.addEventHandler({
      onDelete: (account) => {
        if (account.metadata?.name === defaultServiceAccountName) this.queue.add(account.metadata?.namespace ?? "");
      },
    });
    this.removers.push(
      () => namespaces.remove(),
      () => accounts.remove(),
    );
    this.workers = this.run();
  }

  async stop(): Promise<void> {
    for (const remove of this.removers.splice(0)) remove();
    this.queue.shutDown();
    await this.workers;
  }

  private async run(): Promise<void> {
    const synced = await Promise.all([this.namespaces.waitForSync(), this.accounts.waitForSync()]);
    if (!synced.every(Boolean)) return;
    await runWorkers(
      this.queue,
      serviceAccountSyncWorkerCount,
      (namespace) => this.sync(namespace),
      (key, error) => {
        const why = errorMessage(error);
        this.context.logger.warn("sync failed; will retry with backoff", { controller: this.name, key, error: why });
      },
    );
  }

  private async sync(namespaceName: string): Promise<void> {
    const namespace = this.namespaces.lister.get("", namespaceName);
    if (namespace === undefined || namespace.metadata?.deletionTimestamp !== undefined) return;
    if (namespace.status?.phase === "Terminating") return;
    if (this.accounts.lister.get(namespaceName, defaultServiceAccountName) !== undefined) return;
    try {
      await this.context.client.resource("ServiceAccount").create({
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: defaultServiceAccountName, namespace: namespaceName },
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
}
