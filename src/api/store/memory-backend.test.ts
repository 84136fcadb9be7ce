import { describeBackendConformance } from "./backend-conformance.ts";
import { MemoryBackend } from "./memory-backend.ts";

describeBackendConformance("memory", async (options) => {
  const backend = new MemoryBackend(options);
  return { backend, dispose: () => backend.close() };
});
