/**
 * The fields each kind can be selected by (`?fieldSelector=`), as Kubernetes' per-kind
 * `ToSelectableFields` functions define them. Every kind has metadata.name and metadata.namespace;
 * a field absent from an object reads as "".
 */
/** Reads one field of an API object as the string a selector compares with. */
export type FieldReader = (obj: object) => string;

function at(obj: object, path: readonly string[]): unknown {
  let current: unknown = obj;
  for (const segment of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = Object.hasOwn(current, segment) ? (current as Record<string, unknown>)[segment] : undefined;
  }
  return current;
}

/** Reads a string (or number) field; anything else, including absence, is "". */
function text(...path: string[]): FieldReader {
  return (obj) => {
    const value = at(obj, path);
    return typeof value === "string" || typeof value === "number" ? String(value) : "";
  };
}

/** Reads a boolean the way Go's fmt.Sprint prints it: absent is "false". */
function flag(...path: string[]): FieldReader {
  return (obj) => (at(obj, path) === true ? "true" : "false");
}

const common: Record<string, FieldReader> = {
  "metadata.name": text("metadata", "name"),
  "metadata.namespace": text("metadata", "namespace"),
};

const perKind: Record<string, Record<string, FieldReader>> = {
  Pod: {
    "spec.nodeName": text("spec", "nodeName"),
    "spec.restartPolicy": text("spec", "restartPolicy"),
    "spec.schedulerName": text("spec", "schedulerName"),
    "spec.serviceAccountName": text("spec", "serviceAccountName"),
    "status.phase": text("status", "phase"),
    "status.podIP": text("status", "podIP"),
    "status.nominatedNodeName": text("status", "nominatedNodeName"),
  },
  Event: {
    "involvedObject.kind": text("involvedObject", "kind"),
    "involvedObject.namespace": text("involvedObject", "namespace"),
    "involvedObject.name": text("involvedObject", "name"),
    "involvedObject.uid": text("involvedObject", "uid"),
    "involvedObject.apiVersion": text("involvedObject", "apiVersion"),
    "involvedObject.resourceVersion": text("involvedObject", "resourceVersion"),
    "involvedObject.fieldPath": text("involvedObject", "fieldPath"),
    reason: text("reason"),
    reportingComponent: text("reportingComponent"),
    source: text("source", "component"),
    type: text("type"),
  },
  Node: { "spec.unschedulable": flag("spec", "unschedulable") },
  PersistentVolume: { "status.phase": text("status", "phase") },
  PersistentVolumeClaim: { "status.phase": text("status", "phase") },
  Namespace: { "status.phase": text("status", "phase") },
  Secret: { type: text("type") },
};

const tables = new Map<string, ReadonlyMap<string, FieldReader>>();

/** The selectable fields of `kind`, by field path. */
export function selectableFields(kind: string): ReadonlyMap<string, FieldReader> {
  let table = tables.get(kind);
  if (table === undefined) {
    table = new Map(Object.entries({ ...common, ...perKind[kind] }));
    tables.set(kind, table);
  }
  return table;
}
