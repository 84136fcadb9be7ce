/**
 * The Store: Kubernetes API semantics (store.ts) over any KVBackend. The per-request rules live
 * beside it — create-rules.ts, update-rules.ts, graceful-deletion.ts, watch-filter.ts — and this
 * class sequences them against the backend: read, check preconditions, prepare, validate, write
 * with the read revision as the compare-and-swap guard.
 */

import type { Clock } from "../../runtime/clock.ts";
import { type AdmissionConfig, admitCreate, DEFAULT_ADMISSION } from "../admission/admit-create.ts";
import { applyDefaults } from "../defaults/defaults.ts";
import {
  ApiError,
  alreadyExists,
  badRequest,
  conflict,
  type FieldCause,
  invalid,
  isGone,
  notFound,
  STALE_OBJECT_MESSAGE,
} from "../errors.ts";
import type { KObject, Pod } from "../objects.ts";
import { apiVersionOf, type ResourceType } from "../resources.ts";
import { parseFieldSelector } from "../selectors/fields.ts";
import { parseLabelSelector } from "../selectors/labels.ts";
import { validateObject } from "../validation/validate.ts";
import { BackendConflict, type BackendEntry, type BackendWriteOptions, type KVBackend } from "./backend.ts";
import { defaultEventTtlSeconds, generateNameMaxAttempts, unconditionalWriteMaxAttempts } from "./constants.ts";
import { continueExpired, decodeContinue, encodeContinue } from "./continue-token.ts";
import { prepareForCreate } from "./create-rules.ts";
import { generateName } from "./generate-name.ts";
import { planDeletion } from "./graceful-deletion.ts";
import { completesNamespaceDeletion, prepareFinalizeUpdate } from "./namespace-rules.ts";
import { type BindPodOptions, bindPod } from "./pod-binding.ts";
import { pathSegmentProblem, storageKey, storagePrefix } from "./storage-keys.ts";
import type {
  CreateOptions,
  DeleteOptions,
  ListOptions,
  ObjectList,
  Store,
  StoreWatch,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
} from "./store.ts";
import { WatchSession } from "./store-watch.ts";
import {
  completesDeletion,
  finalizerCauses,
  prepareMainUpdate,
  prepareStatusUpdate,
  sameStoredContent,
} from "./update-rules.ts";
import { WatchFilter } from "./watch-filter.ts";

/** The randomness a store needs: uids and generated names. The runtime's seeded `Rng` fits. */
export interface StoreRandom {
  uuid(): string;
  int(min: number, maxInclusive: number): number;
}

export type Validator = (type: ResourceType, object: KObject, old?: KObject) => FieldCause[];

interface KubeStoreOptions {
  backend: KVBackend;
  clock: Clock;
  random: StoreRandom;
  /** Validation of every create and update; defaults to the API's `validateObject`. */
  validate?: Validator;
  /** Mutating admission on create (DefaultTolerationSeconds); Kubernetes' defaults when omitted. */
  admission?: AdmissionConfig;
  /**
   * How long an Event is kept after its last write (kube-apiserver's `--event-ttl`); default
   * `defaultEventTtlSeconds`. Each create or update of an Event starts it again, as in Kubernetes.
   */
  eventTtlSeconds?: number;
}

/** True when `text` is one or more ASCII digits: a character loop, as every update parses one and a regular expression costs several times more. */
function isDigits(text: unknown): text is string {
  if (typeof text !== "string" || text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

/** `text` comes from a client's JSON, so it may be any value: only a string of digits is a revision. */
function parseRevision(text: unknown): number {
  if (!isDigits(text)) {
    const shown = typeof text === "string" ? text : JSON.stringify(text);
    throw badRequest(`invalid resource version "${shown}": a resource version is a non-negative integer`);
  }
  return Number(text);
}

const noCauses: FieldCause[] = [];

/**
 * The store's own causes and the validator's, each said once. Nearly every write has none: that
 * case returns at once, without the arrays and the Set a merge needs.
 */
function combinedCauses(own: FieldCause[], validated: FieldCause[]): FieldCause[] {
  if (own.length === 0 && validated.length === 0) return noCauses;
  return uniqueCauses([...own, ...validated]);
}

/** The store's own checks and the validator may both report a problem; say it once. */
function uniqueCauses(causes: FieldCause[]): FieldCause[] {
  const seen = new Set<string>();
  return causes.filter((cause) => {
    const id = `${cause.field}\u0000${cause.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

function staleConflict(type: ResourceType, name: string): ApiError {
  return conflict(type.plural, type.group, name, STALE_OBJECT_MESSAGE);
}

function nameCauses(type: ResourceType, object: KObject): FieldCause[] {
  const meta = object.metadata ?? {};
  const causes: FieldCause[] = [];
  if (!meta.name) {
    causes.push({
      field: "metadata.name",
      reason: "FieldValueRequired",
      message: "Required value: name or generateName is required",
    });
  }
  // Two calls, not a loop over [field, value] pairs: every create runs this, and the pairs were garbage.
  addSegmentCause(causes, "metadata.name", meta.name);
  if (type.namespaced) addSegmentCause(causes, "metadata.namespace", meta.namespace);
  return causes;
}

/** Adds the cause for `value` at `field` when it cannot be a key segment. */
function addSegmentCause(causes: FieldCause[], field: string, value: unknown): void {
  // A name of the wrong type is the schema check's to report; only a string can be a key segment.
  const problem = typeof value === "string" && value !== "" ? pathSegmentProblem(value) : undefined;
  if (problem !== undefined) {
    causes.push({ field, reason: "FieldValueInvalid", message: `Invalid value: ${JSON.stringify(value)}: ${problem}` });
  }
}

/** What a dry-run write answers: the object it would store, at the revision it was read at. */
function dryRunResult(current: BackendEntry, next: KObject): KObject {
  return { ...next, metadata: { ...next.metadata, resourceVersion: String(current.modRevision) } };
}

/** An update's optimistic-concurrency guard (resourceVersion) and identity guard (uid). */
function checkUpdatePreconditions(
  type: ResourceType,
  name: string,
  expectedRevision: number | undefined,
  uid: string | undefined,
  current: BackendEntry,
): void {
  if (expectedRevision !== undefined && expectedRevision !== current.modRevision) throw staleConflict(type, name);
  const storedUid = current.object.metadata?.uid;
  if (uid && uid !== storedUid) {
    const why = `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${storedUid}`;
    throw conflict(type.plural, type.group, name, why);
  }
}

export class KubeStore implements Store {
  readonly backendKind: string;
  private readonly backend: KVBackend;
  private readonly clock: Clock;
  private readonly random: StoreRandom;
  private readonly validate: Validator;
  private readonly admission: AdmissionConfig;
  private readonly eventWrite: BackendWriteOptions;
  private readonly watches = new Set<WatchSession>();

  constructor(options: KubeStoreOptions) {
    this.backend = options.backend;
    this.backendKind = options.backend.kind;
    this.clock = options.clock;
    this.random = options.random;
    this.validate = options.validate ?? validateObject;
    this.admission = options.admission ?? DEFAULT_ADMISSION;
    const eventTtlSeconds = options.eventTtlSeconds ?? defaultEventTtlSeconds;
    if (!Number.isInteger(eventTtlSeconds) || eventTtlSeconds < 1) {
      throw new RangeError(`the event TTL must be a whole number of seconds from 1 on, got ${eventTtlSeconds}`);
    }
    this.eventWrite = { ttlSeconds: eventTtlSeconds };
  }

  revision(): number {
    return this.backend.revision();
  }

  async create<T extends KObject>(type: ResourceType, object: T, options: CreateOptions = {}): Promise<T> {
    const prepared = prepareForCreate(type, admitCreate(type.kind, applyDefaults(type.kind, object), this.admission), {
      nowMs: this.clock.now(),
      uid: this.random.uuid(),
    });
    const prefix = prepared.metadata.generateName;
    const generated = !prepared.metadata.name && prefix !== undefined && prefix !== "";
    if (generated) prepared.metadata.name = generateName(prefix, this.random);
    const name = prepared.metadata.name ?? "";
    const validated = options.skipValidation ? noCauses : this.validate(type, prepared);
    const causes = combinedCauses(nameCauses(type, prepared), validated);
    if (causes.length > 0) throw invalid(type.kind, type.group, name, causes);
    if (options.dryRun) return (await this.dryRunCreate(type, prepared)) as T;
    const attempts = generated ? generateNameMaxAttempts : 1;
    for (let attempt = 1; ; attempt++) {
      const candidate = prepared.metadata.name as string;
      try {
        const key = storageKey(type, prepared.metadata.namespace ?? "", candidate);
        return (await this.backend.create(key, prepared, this.writeOptions(type))).object as T;
      } catch (error) {
        if (!(error instanceof BackendConflict)) throw error;
        if (attempt >= attempts) throw this.alreadyExists(type, candidate, error.current);
        prepared.metadata.name = generateName(prefix as string, this.random);
      }
    }
  }

  async get<T extends KObject>(type: ResourceType, namespace: string, name: string): Promise<T> {
    const entry = await this.backend.get(storageKey(type, namespace, name));
    if (entry === undefined) throw notFound(type.plural, type.group, name);
    return entry.object as T;
  }

  async list<T extends KObject>(type: ResourceType, options: ListOptions = {}): Promise<ObjectList<T>> {
    const filter = this.filterFor(type, options);
    const prefix = storagePrefix(type, options.namespace);
    let atRevision: number | undefined;
    let startKey: string | undefined;
    if (options.continue) {
      if (options.resourceVersion && options.resourceVersion !== "0") {
        throw badRequest("specifying resource version is not allowed when using continue");
      }
      ({ revision: atRevision, startKey } = decodeContinue(prefix, options.continue));
    } else if (options.resourceVersion && options.resourceVersion !== "0") {
      atRevision = parseRevision(options.resourceVersion);
    }
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    try {
      return await this.collect<T>(prefix, filter, atRevision, startKey, limit);
    } catch (error) {
      if (options.continue && isGone(error)) throw continueExpired();
      throw error;
    }
  }

  async update<T extends KObject>(type: ResourceType, object: T, options: UpdateOptions = {}): Promise<T> {
    const unserved =
      (options.subresource === "status" && !type.hasStatus) ||
      (options.subresource === "finalize" && type.kind !== "Namespace");
    if (unserved) {
      throw new ApiError("NotFound", "the server could not find the requested resource", { kind: type.plural });
    }
    const meta = object.metadata ?? {};
    const name = meta.name;
    if (!name) throw badRequest("resource name may not be empty");
    const key = storageKey(type, type.namespaced ? meta.namespace || "default" : "", name);
    const expected = meta.resourceVersion ? parseRevision(meta.resourceVersion) : undefined;
    for (let attempt = 1; attempt <= unconditionalWriteMaxAttempts; attempt++) {
      const current = await this.backend.get(key);
      if (current === undefined) throw notFound(type.plural, type.group, name);
      checkUpdatePreconditions(type, name, expected, meta.uid, current);
      const next = this.prepareUpdate(type, object, current.object, options);
      if (options.dryRun) return dryRunResult(current, next) as T;
      try {
        return (await this.writeUpdate(type, key, current, next)) as T;
      } catch (error) {
        if (!(error instanceof BackendConflict)) throw error;
        if (expected !== undefined) throw staleConflict(type, name);
      }
    }
    throw this.tooManyConflicts(type, name);
  }

  async delete<T extends KObject>(
    type: ResourceType,
    namespace: string,
    name: string,
    options: DeleteOptions = {},
  ): Promise<T> {
    const key = storageKey(type, namespace, name);
    for (let attempt = 1; attempt <= unconditionalWriteMaxAttempts; attempt++) {
      const current = await this.backend.get(key);
      if (current === undefined) throw notFound(type.plural, type.group, name);
      this.checkDeletePreconditions(type, name, current, options);
      const plan = planDeletion(type, current.object, options, this.clock.now());
      if (options.dryRun) return dryRunResult(current, plan.action === "mark" ? plan.object : current.object) as T;
      try {
        if (plan.action === "wait") return current.object as T;
        if (plan.action === "remove") return (await this.backend.delete(key, current.modRevision)).object as T;
        const marked = await this.writeUpdate(type, key, current, plan.object);
        if (!plan.thenRemove) return marked as T;
        const markedRevision = Number(marked.metadata?.resourceVersion);
        return (await this.backend.delete(key, markedRevision)).object as T;
      } catch (error) {
        if (!(error instanceof BackendConflict)) throw error;
        // Someone else wrote in between: read again and decide again, as Kubernetes' GuaranteedUpdate.
        if (error.current === undefined) throw notFound(type.plural, type.group, name);
      }
    }
    throw this.tooManyConflicts(type, name);
  }

  async watch<T extends KObject>(
    type: ResourceType,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<StoreWatch> {
    const filter = this.filterFor(type, options);
    const prefix = storagePrefix(type, options.namespace);
    const fromNow = !options.resourceVersion || options.resourceVersion === "0";
    let fromRevision: number;
    let initial: WatchEvent[] = [];
    if (fromNow) {
      const listed = await this.backend.list(prefix);
      fromRevision = listed.revision;
      initial = listed.entries
        .filter((entry) => filter.matches(entry.object))
        .map((entry) => ({ type: "ADDED", object: entry.object }));
    } else {
      fromRevision = parseRevision(options.resourceVersion as string);
    }
    const session = new WatchSession({
      backend: this.backend,
      prefix,
      fromRevision,
      initial,
      filter,
      onEvent: onEvent as (event: WatchEvent) => void,
      clock: this.clock,
      ...(options.allowBookmarks ? { bookmarkType: { kind: type.kind, apiVersion: apiVersionOf(type) } } : {}),
      onStop: (stopped) => this.watches.delete(stopped),
    });
    this.watches.add(session);
    return session;
  }

  bindPod(namespace: string, name: string, nodeName: string, options: BindPodOptions = {}): Promise<Pod> {
    return bindPod({ backend: this.backend, clock: this.clock }, namespace, name, nodeName, options);
  }

  async close(): Promise<void> {
    for (const session of [...this.watches]) session.stop();
    await this.backend.close();
  }

  private filterFor(type: ResourceType, options: ListOptions): WatchFilter {
    return new WatchFilter(
      parseLabelSelector(options.labelSelector),
      parseFieldSelector(type.kind, options.fieldSelector),
    );
  }

  /** Reads pages from the backend until `limit` objects pass the filter or the keys run out. */
  private async collect<T extends KObject>(
    prefix: string,
    filter: WatchFilter,
    atRevision: number | undefined,
    startKey: string | undefined,
    limit: number | undefined,
  ): Promise<ObjectList<T>> {
    const items: T[] = [];
    let revision = atRevision;
    let nextKey = startKey;
    for (;;) {
      const wanted = limit === undefined ? undefined : limit - items.length;
      const page = await this.backend.list(prefix, revision, { startKey: nextKey, limit: wanted });
      revision = page.revision;
      for (const entry of page.entries) if (filter.matches(entry.object)) items.push(entry.object as T);
      const last = page.entries[page.entries.length - 1];
      if (!page.more || last === undefined) return { items, resourceVersion: String(revision) };
      if (limit !== undefined && items.length >= limit) {
        return { items, resourceVersion: String(revision), continue: encodeContinue(prefix, last.key, revision) };
      }
      nextKey = `${last.key}\u0000`;
    }
  }

  /** The object an update would store: the subresource's rules applied, then validated. */
  private prepareUpdate(type: ResourceType, object: KObject, current: KObject, options: UpdateOptions): KObject {
    const next =
      options.subresource === "status"
        ? prepareStatusUpdate(object, current)
        : options.subresource === "finalize"
          ? prepareFinalizeUpdate(object, current)
          : prepareMainUpdate(type, applyDefaults(type.kind, object), current);
    const validated = options.skipValidation ? noCauses : this.validate(type, next, current);
    const causes = combinedCauses(finalizerCauses(next, current), validated);
    if (causes.length > 0) throw invalid(type.kind, type.group, current.metadata?.name ?? "", causes);
    return next;
  }

  /** Stores `next` over `current`, or removes the object when `next` completes its deletion. */
  private async writeUpdate(type: ResourceType, key: string, current: BackendEntry, next: KObject): Promise<KObject> {
    const completes =
      type.kind === "Namespace" ? completesNamespaceDeletion(next) : completesDeletion(next, current.object);
    if (completes) return (await this.backend.delete(key, current.modRevision)).object;
    if (sameStoredContent(next, current.object)) return current.object;
    return (await this.backend.update(key, next, current.modRevision, this.writeOptions(type))).object;
  }

  /** Events expire (kube-apiserver's event registry sets its TTL on every create and update). */
  private writeOptions(type: ResourceType): BackendWriteOptions | undefined {
    return type.kind === "Event" ? this.eventWrite : undefined;
  }

  private checkDeletePreconditions(
    type: ResourceType,
    name: string,
    current: BackendEntry,
    options: DeleteOptions,
  ): void {
    const preconditions = options.preconditions;
    const storedUid = current.object.metadata?.uid;
    if (preconditions?.uid !== undefined && preconditions.uid !== storedUid) {
      const why = `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${storedUid}). The object might have been deleted and then recreated`;
      throw conflict(type.kind, type.group, name, why);
    }
    const storedVersion = String(current.modRevision);
    if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== storedVersion) {
      const why = `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${storedVersion}). The object might have been modified`;
      throw conflict(type.kind, type.group, name, why);
    }
  }

  /** A dry-run create answers what a create would have stored, refusing a name that is taken as a create would. */
  private async dryRunCreate(type: ResourceType, prepared: KObject): Promise<KObject> {
    const key = storageKey(type, prepared.metadata?.namespace ?? "", prepared.metadata?.name ?? "");
    const existing = await this.backend.get(key);
    if (existing !== undefined) throw this.alreadyExists(type, prepared.metadata?.name ?? "", existing);
    return prepared;
  }

  private alreadyExists(type: ResourceType, name: string, existing: BackendEntry | undefined): ApiError {
    const error = alreadyExists(type.plural, type.group, name);
    if (!existing?.object.metadata?.deletionTimestamp) return error;
    return new ApiError("AlreadyExists", `object is being deleted: ${error.message}`, error.details);
  }

  private tooManyConflicts(type: ResourceType, name: string): ApiError {
    return conflict(
      type.plural,
      type.group,
      name,
      `the object kept changing during ${unconditionalWriteMaxAttempts} attempts to write it; try again`,
    );
  }
}
