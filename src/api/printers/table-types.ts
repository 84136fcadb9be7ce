/**
 * The shapes of Kubernetes' server-side tables (meta.k8s.io/v1 Table): the column definitions and
 * the cells of one row, and the printer each kind provides to fill them.
 */

/** A column, as metav1.TableColumnDefinition: priority 0 is always shown, 1 only with `-o wide`. */
export interface TableColumnDefinition {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "date";
  format: string;
  description: string;
  priority: number;
}

export type TableCell = string | number | boolean;

/** A condition of a row (metav1.TableRowCondition); kubectl marks completed pods with one. */
export interface TableRowCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
}

export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

/** Prints one kind: its columns, and one row per object with a cell for every column, wide ones included. */
export interface ObjectPrinter<T> {
  readonly columns: readonly TableColumnDefinition[];
  row(object: T, nowMs: number): PrintedRow;
}

/** A column definition; `priority` 1 marks a column only `-o wide` shows. */
export function column(
  name: string,
  description: string,
  options: { type?: TableColumnDefinition["type"]; format?: string; priority?: number } = {},
): TableColumnDefinition {
  return {
    name,
    type: options.type ?? "string",
    format: options.format ?? "",
    description,
    priority: options.priority ?? 0,
  };
}

export const nameColumn = column(
  "Name",
  "Name must be unique within a namespace. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
  { format: "name" },
);

export const ageColumn = column(
  "Age",
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is represented in RFC3339 form and is in UTC.",
);

/** What kubectl prints for a value that is not set. */
export const noneText = "<none>";
export const unsetText = "<unset>";
export const unknownText = "<unknown>";
