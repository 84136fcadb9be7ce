/**
 * Building `kubectl describe` text: labelled lines at indentation levels (two spaces each), maps
 * printed one entry per line, `<none>` for what is not set, timestamps as kubectl prints them
 * (RFC 1123 with a numeric zone, in UTC), and the events table. Alignment is tab-writer.ts's.
 */
import type { Event } from "../../api/objects.ts";
import { eventSourceText } from "../../api/printers/event-printer.ts";
import { ageSince } from "../../api/printers/human-duration.ts";
import { parseRfc3339 } from "../../runtime/clock.ts";
import { alignTabs } from "./tab-writer.ts";

const weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const msPerDay = 86_400_000;

/** Year, month (1-12) and day of the days since 1970-01-01 (H. Hinnant's civil_from_days). */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  return [era * 400 + yearOfEra + (month <= 2 ? 1 : 0), month, day];
}

const two = (n: number): string => String(n).padStart(2, "0");

/** `Sat, 21 Nov 2026 18:42:33 +0000`, as kubectl prints times in describe. */
export function describeTime(timestamp: string | undefined): string {
  if (!timestamp) return "<unset>";
  const ms = parseRfc3339(timestamp);
  if (Number.isNaN(ms)) return timestamp;
  const days = Math.floor(ms / msPerDay);
  const [year, month, day] = civilFromDays(days);
  const seconds = Math.floor((ms - days * msPerDay) / 1000);
  const clock = `${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`;
  const weekday = weekdays[((days % 7) + 7) % 7] ?? "";
  return `${weekday}, ${two(day)} ${months[month - 1] ?? ""} ${year} ${clock} +0000`;
}

export class DescribeText {
  private text = "";

  /** `Label:\tvalue` at `level` (0 is the margin); a value of undefined or "" prints as `<none>` unless `keepEmpty`. */
  line(level: number, label: string, value?: string | number | boolean, keepEmpty = false): this {
    const indent = "  ".repeat(level);
    if (value === undefined) this.text += `${indent}${label}\n`;
    else {
      const shown = value === "" && !keepEmpty ? "<none>" : String(value);
      this.text += `${indent}${label}\t${shown}\n`;
    }
    return this;
  }

  /** A row of cells (a table inside describe output). */
  row(level: number, cells: readonly string[]): this {
    this.text += `${"  ".repeat(level)}${cells.join("\t")}\n`;
    return this;
  }

  /** `Labels:  a=b` then one `c=d` per line under the first, as kubectl prints maps. */
  map(level: number, label: string, entries: Readonly<Record<string, string>> | undefined): this {
    const pairs = Object.entries(entries ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (pairs.length === 0) return this.line(level, label, "<none>");
    pairs.forEach(([key, value], index) => {
      const text = `${key}=${value}`;
      if (index === 0) this.line(level, label, text);
      else this.text += `${"  ".repeat(level)}\t${text}\n`;
    });
    return this;
  }

  /** Several values, the first beside the label and the rest under it. */
  list(level: number, label: string, values: readonly string[]): this {
    if (values.length === 0) return this.line(level, label, "<none>");
    values.forEach((value, index) => {
      if (index === 0) this.line(level, label, value);
      else this.text += `${"  ".repeat(level)}\t${value}\n`;
    });
    return this;
  }

  /** The events section: oldest first, `Age` as `5m (x3 over 10m)` for repeated events. */
  events(events: readonly Event[], nowMs: number): this {
    if (events.length === 0) return this.line(0, "Events:", "<none>");
    this.line(0, "Events:");
    this.row(1, ["Type", "Reason", "Age", "From", "Message"]);
    this.row(1, ["----", "------", "----", "----", "-------"]);
    const lastSeen = (e: Event) =>
      e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? e.firstTimestamp ?? "";
    const sorted = [...events].sort((a, b) => parseRfc3339(lastSeen(a)) - parseRfc3339(lastSeen(b)));
    for (const event of sorted) {
      const count = event.series?.count ?? event.count ?? 1;
      const last = ageSince(lastSeen(event) || undefined, nowMs);
      const first = ageSince(event.firstTimestamp ?? event.eventTime ?? undefined, nowMs);
      const age = count > 1 ? `${last} (x${count} over ${first})` : last;
      this.row(1, [event.type ?? "", event.reason ?? "", age, eventSourceText(event), (event.message ?? "").trim()]);
    }
    return this;
  }

  toString(): string {
    return alignTabs(this.text);
  }
}
