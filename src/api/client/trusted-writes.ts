/**
 * Which writes of an in-process component skip schema validation. The simulator's controllers,
 * kubelets and event recorders run in the API server's process and build their objects in code, so
 * re-validating each of their writes in full only re-proves what their own tests prove — at a cost
 * paid on every status write (five per pod, plus claims, volumes and nodes) and every Event (about
 * ten per pod). Only those two kinds of write are trusted: a status write cannot change what the
 * object asks for (the store keeps spec and metadata from the stored copy), and an Event is written
 * by the recorder alone. Creates and spec updates stay validated, and so does everything from
 * users, from manifests and over HTTP (those clients are never trusted).
 *
 * The store's own checks (names, finalizers, preconditions, immutability of what a status write
 * may not touch) run for every write whatever this says.
 */
import type { ResourceType } from "../resources.ts";
import type { CreateOptions, UpdateOptions } from "../store/store.ts";

const untrustedCreate: CreateOptions = Object.freeze({});
const trustedCreate: CreateOptions = Object.freeze({ skipValidation: true });
const mainUpdate: UpdateOptions = Object.freeze({});
const trustedMainUpdate: UpdateOptions = Object.freeze({ skipValidation: true });
const statusUpdate: UpdateOptions = Object.freeze({ subresource: "status" });
const trustedStatusUpdate: UpdateOptions = Object.freeze({ subresource: "status", skipValidation: true });
const finalizeUpdate: UpdateOptions = Object.freeze({ subresource: "finalize" });

export class TrustedWrites {
  private readonly trusted: boolean;
  private readonly isEvent: boolean;

  constructor(type: ResourceType, trusted: boolean) {
    this.trusted = trusted;
    this.isEvent = type.kind === "Event";
  }

  /** The store options of a create. */
  createOptions(): CreateOptions {
    return this.trusted && this.isEvent ? trustedCreate : untrustedCreate;
  }

  /** The store options of an update of the main resource or of a subresource. */
  updateOptions(subresource: "status" | "finalize" | undefined): UpdateOptions {
    if (subresource === "status") return this.trusted ? trustedStatusUpdate : statusUpdate;
    if (subresource === "finalize") return finalizeUpdate;
    return this.trusted && this.isEvent ? trustedMainUpdate : mainUpdate;
  }
}
