/**
 * The query and path parameters the OpenAPI documents declare, with Kubernetes' meanings.
 * kubectl reads these: it sends `fieldValidation` only when the PATCH operation of a kind declares
 * it, and `kubectl explain` and client generators show the descriptions.
 */

export interface ParameterSpec {
  readonly name: string;
  readonly in: "query" | "path";
  readonly type: "string" | "integer" | "boolean";
  readonly description: string;
}

function query(name: string, type: ParameterSpec["type"], description: string): ParameterSpec {
  return { name, in: "query", type, description };
}

export const parameters = {
  name: { name: "name", in: "path", type: "string", description: "name of the object" } as ParameterSpec,
  namespace: {
    name: "namespace",
    in: "path",
    type: "string",
    description: "object name and auth scope, such as for teams and projects",
  } as ParameterSpec,
  pretty: query("pretty", "string", "If 'true', then the output is pretty printed."),
  dryRun: query(
    "dryRun",
    "string",
    "When present, indicates that modifications should not be persisted. The only valid value is All: all dry run stages are processed.",
  ),
  fieldManager: query(
    "fieldManager",
    "string",
    "fieldManager is a name associated with the actor or entity that is making these changes. It must be at most 128 characters long and contain only printable characters. It is required for apply requests (application/apply-patch) and optional for the other patch types.",
  ),
  fieldValidation: query(
    "fieldValidation",
    "string",
    "fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields: Ignore drops them silently, Warn (the default) keeps the request and returns a warning for each, Strict fails the request with a BadRequest error naming them.",
  ),
  force: query(
    "force",
    "boolean",
    'Force is going to "force" Apply requests: the request re-acquires fields owned by other field managers instead of failing with a conflict. It must be unset for non-apply patch requests.',
  ),
  gracePeriodSeconds: query(
    "gracePeriodSeconds",
    "integer",
    "The duration in seconds before the object should be deleted. Zero means delete immediately; unset means the default of the kind.",
  ),
  orphanDependents: query(
    "orphanDependents",
    "boolean",
    "Deprecated: use propagationPolicy. Whether the dependent objects should be orphaned.",
  ),
  propagationPolicy: query(
    "propagationPolicy",
    "string",
    "Whether and how garbage collection will be performed: Orphan, Background or Foreground.",
  ),
  allowWatchBookmarks: query(
    "allowWatchBookmarks",
    "boolean",
    'allowWatchBookmarks requests watch events with type "BOOKMARK"; servers may send them at their discretion.',
  ),
  continue: query("continue", "string", "The continue token of a previous list call, to fetch the next page."),
  fieldSelector: query(
    "fieldSelector",
    "string",
    "A selector to restrict the list of returned objects by their fields.",
  ),
  labelSelector: query(
    "labelSelector",
    "string",
    "A selector to restrict the list of returned objects by their labels.",
  ),
  limit: query("limit", "integer", "The maximum number of objects to return in one page of a list call."),
  resourceVersion: query(
    "resourceVersion",
    "string",
    "resourceVersion sets a constraint on what resource versions a request may be served from.",
  ),
  resourceVersionMatch: query(
    "resourceVersionMatch",
    "string",
    "resourceVersionMatch determines how resourceVersion is applied to list calls: Exact or NotOlderThan.",
  ),
  sendInitialEvents: query(
    "sendInitialEvents",
    "boolean",
    "With watch=true, start the watch with synthetic ADDED events for the current state, then a bookmark.",
  ),
  timeoutSeconds: query("timeoutSeconds", "integer", "Timeout for the list/watch call, in seconds."),
  watch: query("watch", "boolean", "Watch for changes to the described resources and return them as a stream."),
} as const;

export type ParameterName = keyof typeof parameters;
