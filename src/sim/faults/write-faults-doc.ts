/** Writes docs/faults.md from the catalogue: `npx tsx src/sim/faults/write-faults-doc.ts`. */
import { writeFileSync } from "node:fs";
import { faultsDocPath, renderFaultsDoc } from "./faults-doc.ts";

writeFileSync(faultsDocPath, renderFaultsDoc());
process.stdout.write(`wrote ${faultsDocPath}\n`);
