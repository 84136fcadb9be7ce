import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { KubeStore } from "./kube-store.ts";
import { MemoryBackend } from "./memory-backend.ts";
import { describeStoreConformance } from "./store-conformance.ts";

describeStoreConformance("memory", async () => {
  const clock = new VirtualClock();
  const backend = new MemoryBackend({ clock });
  const store = new KubeStore({ backend, clock, random: new Rng(42) });
  return { store, backend, clock, dispose: () => store.close() };
});
