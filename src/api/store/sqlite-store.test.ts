import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../../runtime/rng.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { KubeStore } from "./kube-store.ts";
import { SqliteBackend } from "./sqlite-backend.ts";
import { describeStoreConformance } from "./store-conformance.ts";

describeStoreConformance(
  "sqlite",
  async () => {
    const directory = mkdtempSync(join(tmpdir(), "kvol-sqlite-store-"));
    const path = join(directory, "store.db");
    const clock = new VirtualClock();
    const random = new Rng(42);
    let backend = SqliteBackend.open(path, { clock });
    let store = new KubeStore({ backend, clock, random });
    return {
      store,
      backend,
      clock,
      async reopen() {
        await store.close();
        backend = SqliteBackend.open(path, { clock });
        store = new KubeStore({ backend, clock, random });
        return { store, backend };
      },
      async dispose() {
        await store.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
  { persistent: true },
);
