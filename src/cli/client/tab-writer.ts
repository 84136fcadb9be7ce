/**
 * Go's text/tabwriter as `kubectl describe` uses it (minimum width 0, padding 2, spaces): cells end
 * with a tab, and a column is aligned over each run of consecutive lines that all have a cell in it,
 * so `Name:` and `Namespace:` line up while a nested block aligns on its own.
 */
const describePaddingChars = 2;

function alignColumn(rows: string[][], column: number, start: number, end: number, out: string[][]): void {
  let line = start;
  while (line < end) {
    // Lines whose cell `column` is not tab-terminated (it is their last text) end any block here.
    if ((rows[line]?.length ?? 0) - 1 <= column) {
      line++;
      continue;
    }
    let blockEnd = line;
    while (blockEnd < end && (rows[blockEnd]?.length ?? 0) - 1 > column) blockEnd++;
    const width =
      Math.max(...rows.slice(line, blockEnd).map((cells) => (cells[column] ?? "").length)) + describePaddingChars;
    for (let i = line; i < blockEnd; i++) {
      const target = out[i];
      if (target !== undefined) target[column] = (rows[i]?.[column] ?? "").padEnd(width);
    }
    alignColumn(rows, column + 1, line, blockEnd, out);
    line = blockEnd;
  }
}

/** Aligns the tab-separated cells of `text` as Go's tabwriter does; the last cell of each line is left as it is. */
export function alignTabs(text: string): string {
  const lines = text.split("\n");
  const rows = lines.map((line) => line.split("\t"));
  const out = rows.map((cells) => [...cells]);
  alignColumn(rows, 0, 0, rows.length, out);
  return out.map((cells) => cells.join("").trimEnd()).join("\n");
}
