/**
 * Watches and disturbs a controller's API calls in tests: wraps a Client so that every write it
 * makes is logged (`persistentVolumes.update pv-1`), and the next `times` calls of one verb on one
 * resource can be made to throw an InternalError.
 */
import type { Client, ResourceClient } from "../../../api/client/client.ts";
import { ApiError } from "../../../api/errors.ts";

type FaultyVerb = "create" | "update" | "updateStatus" | "delete" | "get" | "list";

interface FaultRule {
  resource: keyof Client;
  verb: FaultyVerb;
  remaining: number;
  message: string;
}

const faultyVerbs = new Set<string>(["create", "update", "updateStatus", "delete", "get", "list"]);
const readVerbs = new Set<string>(["get", "list"]);

export class ApiFaults {
  private readonly rules: FaultRule[] = [];
  /** Calls refused so far, as `<resource>.<verb>`. */
  readonly refused: string[] = [];
  /** Writes attempted so far (create, update, updateStatus, delete), as `<resource>.<verb> <name>`. */
  readonly writes: string[] = [];

  /** The next `times` calls of `verb` on `resource` (e.g. "persistentVolumes") fail with `message`. */
  fail(resource: keyof Client, verb: FaultyVerb, times: number, message: string): void {
    this.rules.push({ resource, verb, remaining: times, message });
  }

  wrap(client: Client): Client {
    return new Proxy(client, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== "string" || !isResourceClient(value)) return value;
        return this.wrapResource(property as keyof Client, value);
      },
    });
  }

  private wrapResource(resource: keyof Client, client: ResourceClient<never>): ResourceClient<never> {
    return new Proxy(client, {
      get: (target, property, receiver) => {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof property !== "string" || !faultyVerbs.has(property) || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (!readVerbs.has(property)) this.writes.push(`${resource}.${property} ${nameIn(property, args)}`);
          const rule = this.rules.find((r) => r.resource === resource && r.verb === property && r.remaining > 0);
          if (rule === undefined) return value.apply(target, args);
          rule.remaining--;
          this.refused.push(`${resource}.${property}`);
          return Promise.reject(new ApiError("InternalError", rule.message));
        };
      },
    });
  }
}

/** The object name a call is about: the object's for create/update, the argument for delete. */
function nameIn(verb: string, args: readonly unknown[]): string {
  if (verb === "delete") return String(args[1]);
  const object = args[0] as { metadata?: { name?: string } } | undefined;
  return object?.metadata?.name ?? "";
}

function isResourceClient(value: unknown): value is ResourceClient<never> {
  return typeof value === "object" && value !== null && "type" in value && "updateStatus" in value;
}
