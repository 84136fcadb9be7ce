import { MemoryBackend } from "./memory-backend.ts";
import { describeBackendConformance } from "./backend-conformance.ts";

describeBackendConformance("memory", async (options) => {
  const backend = new MemoryBackend(options);
  return { backend, dispose: () => backend.close() };
});
