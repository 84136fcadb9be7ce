/**
 * Objects as a meta.k8s.io Table: the printer's column definitions and one row per object, each
 * row carrying the object as the client asked (none, its metadata as PartialObjectMetadata, or
 * all of it). Lists, single GETs and every watch event use the same rows.
 */
import type { KObject } from "../api/objects.ts";
import { printerFor } from "../api/printers/printers.ts";
import type { TableCell, TableColumnDefinition, TableRowCondition } from "../api/printers/table-types.ts";
import type { TableRequest } from "./table-negotiation.ts";

interface TableRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
  object?: KObject;
}

interface Table {
  kind: "Table";
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

function rowObject(object: KObject, table: TableRequest): KObject | undefined {
  switch (table.includeObject) {
    case "None":
      return undefined;
    case "Object":
      return object;
    case "Metadata":
      return { kind: "PartialObjectMetadata", apiVersion: table.apiVersion, metadata: object.metadata ?? {} };
  }
}

interface TableOptions {
  kind: string;
  table: TableRequest;
  nowMs: number;
  listMeta?: Table["metadata"];
}

export function objectsAsTable(objects: readonly KObject[], options: TableOptions): Table {
  const printer = printerFor(options.kind);
  const rows = objects.map((object): TableRow => {
    const printed = printer.row(object, options.nowMs);
    const carried = rowObject(object, options.table);
    return {
      cells: printed.cells,
      ...(printed.conditions === undefined ? {} : { conditions: printed.conditions }),
      ...(carried === undefined ? {} : { object: carried }),
    };
  });
  return {
    kind: "Table",
    apiVersion: options.table.apiVersion,
    metadata: options.listMeta ?? {},
    columnDefinitions: [...printer.columns],
    rows,
  };
}

/** A watch bookmark as a Table: no rows, only the resourceVersion the client may resume from. */
export function bookmarkAsTable(resourceVersion: string | undefined, table: TableRequest): Table {
  return {
    kind: "Table",
    apiVersion: table.apiVersion,
    metadata: resourceVersion === undefined ? {} : { resourceVersion },
    columnDefinitions: [],
    rows: [],
  };
}
