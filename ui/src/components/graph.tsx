/**
 * The cluster as a graph: one column per kind (pods, claims, volumes, attachments, nodes), edges
 * along the chain a pod's volume follows. The selected object's story is drawn bright, the rest dim.
 */
import type { GraphKind, GraphObject } from "../../../src/cli/webui/graph-objects.ts";
import type { Story } from "../data/view.ts";

const columns: readonly { kind: GraphKind; title: string }[] = [
  { kind: "Pod", title: "Pods" },
  { kind: "PersistentVolumeClaim", title: "Claims" },
  { kind: "PersistentVolume", title: "Volumes" },
  { kind: "Attachment", title: "Attachments" },
  { kind: "Node", title: "Nodes" },
];

const boxWidth = 200;
const boxHeight = 46;
const columnGap = 40;
const rowGap = 14;
const headerHeight = 26;

interface Placed {
  object: GraphObject;
  x: number;
  y: number;
}

function place(objects: readonly GraphObject[]): Map<string, Placed> {
  const placed = new Map<string, Placed>();
  columns.forEach((column, index) => {
    const inColumn = objects.filter((object) => object.kind === column.kind);
    inColumn.forEach((object, row) => {
      placed.set(object.key, {
        object,
        x: index * (boxWidth + columnGap),
        y: headerHeight + row * (boxHeight + rowGap),
      });
    });
  });
  return placed;
}

function shorten(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

export function Graph(props: {
  objects: readonly GraphObject[];
  selected: string;
  story: Story | undefined;
  onSelect: (key: string) => void;
}) {
  const placed = place(props.objects);
  const rows = Math.max(1, ...columns.map((column) => props.objects.filter((o) => o.kind === column.kind).length));
  const width = columns.length * (boxWidth + columnGap) - columnGap;
  const height = headerHeight + rows * (boxHeight + rowGap);
  const lit = (key: string) => props.story === undefined || props.story.keys.has(key);
  return (
    <svg class="graph" viewBox={`-2 0 ${width + 4} ${height}`} width={width + 4} height={height} role="img">
      <title>Pods, claims, volumes, attachments and nodes</title>
      {columns.map((column, index) => (
        <text class="graph-heading" x={index * (boxWidth + columnGap) + 4} y={16}>
          {column.title}
        </text>
      ))}
      {[...placed.values()].flatMap(({ object, x, y }) =>
        object.edges.flatMap((edge) => {
          const target = placed.get(edge);
          if (target === undefined) return [];
          const fromX = x + boxWidth;
          const fromY = y + boxHeight / 2;
          const toX = target.x;
          const toY = target.y + boxHeight / 2;
          const skip = target.x - x > boxWidth + columnGap;
          const middle = (fromX + toX) / 2;
          return [
            <path
              key={`${object.key}>${edge}`}
              class={`edge ${skip ? "edge-skip" : ""} ${lit(object.key) && lit(edge) ? "lit" : "dim"}`}
              d={`M${fromX},${fromY} C${middle},${fromY} ${middle},${toY} ${toX},${toY}`}
            />,
          ];
        }),
      )}
      {[...placed.values()].map(({ object, x, y }) => (
        // biome-ignore lint/a11y/useSemanticElements: an SVG group cannot be a button element
        <g
          key={object.key}
          class={`box health-${object.health} ${props.selected === object.key ? "selected" : ""} ${lit(object.key) ? "lit" : "dim"}`}
          transform={`translate(${x},${y})`}
          onClick={() => props.onSelect(object.key)}
          role="button"
          tabIndex={0}
          data-key={object.key}
          onKeyDown={(event) => {
            if (event.key === "Enter") props.onSelect(object.key);
          }}
        >
          <title>{`${object.key}\n${object.status}`}</title>
          <rect width={boxWidth} height={boxHeight} rx={7} />
          <circle class="dot" cx={12} cy={15} r={4} />
          <text class="box-name" x={22} y={19}>
            {shorten(object.name, 25)}
          </text>
          <text class="box-status" x={10} y={36}>
            {shorten(object.status, 31)}
          </text>
        </g>
      ))}
    </svg>
  );
}
