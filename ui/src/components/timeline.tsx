/**
 * The selected pod's or volume's timeline: one lane per component, events and state changes as
 * marks, operations and backoff as bars (a backoff bar ends at "no retries permitted until"), and
 * below it the same entries as text. In a recording a click on the lanes moves the moment shown.
 */
import { type LaneEntry, lanes, laneTitles } from "../../../src/api/debug/lanes.ts";
import { clockLabel, type ViewData } from "../data/view.ts";

const labelWidth = 170;
const laneHeight = 26;
const plotWidth = 840;
const axisHeight = 22;
const maxListed = 400;

interface Bar {
  entry: LaneEntry;
  fromMs: number;
  toMs: number;
}

/** Operations drawn from their start to their end (or to now, while running), backoffs to their retry time. */
function bars(entries: readonly LaneEntry[], endMs: number): Bar[] {
  const result: Bar[] = [];
  entries.forEach((entry, index) => {
    if (entry.kind === "backoff") result.push({ entry, fromMs: entry.atMs, toMs: entry.untilMs ?? entry.atMs });
    if (entry.kind === "operation" && entry.message.endsWith(" started")) {
      const subject = entry.message.slice(0, -" started".length);
      const end = entries.slice(index + 1).find((later) => later.message === `${subject} ended`);
      result.push({ entry, fromMs: entry.atMs, toMs: end?.atMs ?? endMs });
    }
  });
  return result;
}

export function Timeline(props: {
  view: ViewData;
  entries: readonly LaneEntry[];
  cursorMs: number | undefined;
  onMoveTo: ((atMs: number) => void) | undefined;
}) {
  const { view, entries } = props;
  const spanMs = Math.max(1000, view.endMs - view.startMs);
  const x = (atMs: number) =>
    labelWidth + ((Math.min(Math.max(atMs, view.startMs), view.endMs) - view.startMs) / spanMs) * plotWidth;
  const used = lanes.filter((lane) => lane !== "cluster" || entries.some((entry) => entry.lane === lane));
  const laneY = (lane: LaneEntry["lane"]) => axisHeight + used.indexOf(lane) * laneHeight;
  const height = axisHeight + used.length * laneHeight + 4;
  const ticks = Array.from({ length: 7 }, (_, index) => view.startMs + (spanMs * index) / 6);
  const onClick = (event: MouseEvent) => {
    if (props.onMoveTo === undefined) return;
    const svg = event.currentTarget as SVGSVGElement;
    const box = svg.getBoundingClientRect();
    const scale = box.width / (labelWidth + plotWidth + 40);
    const px = (event.clientX - box.left) / scale - labelWidth;
    if (px >= 0) props.onMoveTo(view.startMs + (px / plotWidth) * spanMs);
  };
  // A live cluster's newest entries first; a recording reads from the start.
  const listed = view.mode === "live" ? entries.slice(-maxListed).reverse() : entries;
  return (
    <div class="timeline">
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the moment slider above is the keyboard's way to move in time */}
      <svg class="lanes" viewBox={`0 0 ${labelWidth + plotWidth + 40} ${height}`} role="img" onClick={onClick}>
        <title>Timeline, one lane per component</title>
        {ticks.map((tick) => (
          <g key={tick}>
            <line class="tick" x1={x(tick)} x2={x(tick)} y1={axisHeight - 4} y2={height} />
            <text class="tick-label" x={x(tick)} y={12} text-anchor="middle">
              {clockLabel(tick, view.startMs, view.mode)}
            </text>
          </g>
        ))}
        {used.map((lane, index) => (
          <g key={lane}>
            <rect
              class={`lane-bg ${index % 2 === 0 ? "even" : "odd"}`}
              x={0}
              y={laneY(lane)}
              width={labelWidth + plotWidth + 40}
              height={laneHeight}
            />
            <text class="lane-label" x={8} y={laneY(lane) + 17}>
              {laneTitles[lane]}
            </text>
          </g>
        ))}
        {bars(entries, view.endMs).map((bar) => (
          <rect
            key={`${bar.entry.atMs}-${bar.entry.message}`}
            class={`bar bar-${bar.entry.kind}`}
            x={x(bar.fromMs)}
            y={laneY(bar.entry.lane) + 7}
            width={Math.max(3, x(bar.toMs) - x(bar.fromMs))}
            height={laneHeight - 14}
            rx={3}
          >
            <title>{`${clockLabel(bar.fromMs, view.startMs, view.mode)} ${bar.entry.message}`}</title>
          </rect>
        ))}
        {entries
          .filter((entry) => entry.kind !== "backoff")
          .map((entry) => (
            <circle
              key={`${entry.atMs}-${entry.lane}-${entry.message}`}
              class={`mark mark-${entry.kind}`}
              cx={x(entry.atMs)}
              cy={laneY(entry.lane) + laneHeight / 2}
              r={entry.kind === "warning" ? 5 : 4}
            >
              <title>{`${clockLabel(entry.atMs, view.startMs, view.mode)} ${entry.object}: ${entry.message}`}</title>
            </circle>
          ))}
        {props.cursorMs === undefined ? null : (
          <line class="cursor" x1={x(props.cursorMs)} x2={x(props.cursorMs)} y1={axisHeight - 6} y2={height} />
        )}
      </svg>
      <ol class="entries">
        {listed.map((entry) => (
          <li
            key={`${entry.atMs}-${entry.lane}-${entry.message}`}
            class={`entry entry-${entry.kind} ${props.cursorMs !== undefined && entry.atMs > props.cursorMs ? "later" : ""}`}
          >
            <span class="entry-time">{clockLabel(entry.atMs, view.startMs, view.mode)}</span>
            <span class={`entry-lane lane-${entry.lane}`}>{laneTitles[entry.lane]}</span>
            <span class="entry-object">{entry.object}</span>
            <span class="entry-message">{entry.message}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}
