/**
 * Server-side Tables printed as kubectl prints them: upper-case headers, the priority-0 columns
 * (all of them with `-o wide`), cells padded to their column's width plus three spaces (Go's
 * tabwriter as kubectl configures it), an optional NAMESPACE column for `-A`, and `kind/name`
 * names when several kinds are shown together.
 */
import type { TableCell, TableColumnDefinition } from "../../api/printers/table-types.ts";

/** kubectl's tabwriter: at least this wide per cell, and this many spaces between cells. */
const minCellWidthChars = 6;
const cellPaddingChars = 3;

export interface WireTable {
  kind?: string;
  metadata?: { resourceVersion?: string };
  columnDefinitions?: TableColumnDefinition[];
  rows?: { cells: (TableCell | null)[]; object?: { metadata?: { namespace?: string; name?: string } } }[];
}

interface TableTextOptions {
  wide: boolean;
  withNamespace: boolean;
  /** Put before every name (`pod/`), when several kinds share the output. */
  namePrefix?: string;
}

function cellText(cell: TableCell | null | undefined): string {
  if (cell === null || cell === undefined) return "<none>";
  return String(cell);
}

/** The table's lines (header first), each cell as text, before padding. */
export function tableLines(table: WireTable, options: TableTextOptions): string[][] {
  const columns = (table.columnDefinitions ?? []).map((column, index) => ({ column, index }));
  const shown = columns.filter(({ column }) => options.wide || column.priority === 0);
  const header = shown.map(({ column }) => column.name.toUpperCase());
  const lines = [options.withNamespace ? ["NAMESPACE", ...header] : header];
  for (const row of table.rows ?? []) {
    const cells = shown.map(({ column, index }) => {
      const text = cellText(row.cells[index]);
      return column.format === "name" && options.namePrefix && index === 0 ? `${options.namePrefix}${text}` : text;
    });
    lines.push(options.withNamespace ? [row.object?.metadata?.namespace ?? "", ...cells] : cells);
  }
  return lines;
}

/** Widths of each column over all lines so far, for `-w`, which keeps the widths of the first table. */
export function columnWidths(lines: readonly string[][], atLeast: readonly number[] = []): number[] {
  const widths: number[] = [...atLeast];
  for (const line of lines) {
    line.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length + cellPaddingChars, minCellWidthChars);
    });
  }
  return widths;
}

/** Lines padded to the widths; the last cell of a line is never padded. */
export function formatLines(lines: readonly string[][], widths: readonly number[]): string {
  return lines
    .map((line) =>
      line
        .map((cell, index) => (index === line.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
        .join("")
        .trimEnd(),
    )
    .map((line) => `${line}\n`)
    .join("");
}

export function tableText(table: WireTable, options: TableTextOptions): string {
  const lines = tableLines(table, options);
  return formatLines(lines, columnWidths(lines));
}
