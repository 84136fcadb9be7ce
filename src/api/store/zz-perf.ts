import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import type { KObject } from "../objects.ts";
import { resourceForKind } from "../resources.ts";
import { createMemoryStore } from "./memory-store.ts";

const clock = new VirtualClock();
const novalidate = process.argv[2] === "nv";
const store = createMemoryStore({ clock, random: new Rng(1), ...(novalidate ? { validate: () => [] } : {}) });
const pods = resourceForKind("Pod")!;
let events = 0;
const W = Number(process.argv[3] ?? 0);
for (let i = 0; i < W; i++)
  await store.watch(pods, { fieldSelector: `spec.nodeName=node-${i}` }, () => {
    events++;
  });
const N = 50_000;
const c = process.cpuUsage();
let t = performance.now();
const created: KObject[] = [];
for (let i = 0; i < N; i++) {
  created.push(
    await store.create(pods, {
      metadata: { name: `p-${i}`, namespace: `ns-${i % 100}`, labels: { app: "web" } },
      spec: { containers: [{ name: "c", image: "img" }], nodeName: `node-${i % 50}` },
    }),
  );
}
let dt = performance.now() - t;
console.log("cpu ms", (process.cpuUsage(c).user + process.cpuUsage(c).system) / 1000 / 2, "wall", dt);
console.log("creates/s", Math.round((N / dt) * 1000));
t = performance.now();
for (let i = 0; i < N; i++) {
  const p = created[i]!;
  await store.update(pods, { ...p, metadata: { ...p.metadata, annotations: { x: String(i) } } });
}
dt = performance.now() - t;
console.log("updates/s", Math.round((N / dt) * 1000));
t = performance.now();
for (let i = 0; i < 1000; i++) await store.list(pods, { namespace: `ns-${i % 100}` });
console.log("ns lists/s", Math.round((1000 / (performance.now() - t)) * 1000));
await clock.advanceBy(0);
console.log("events", events);
