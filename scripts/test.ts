/**
 * Runs every `*.test.ts` under src/ and bench/ (or the files and folders given) with Node's built-in test
 * runner. Node 20's runner takes no glob, so the files are found here.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

function findTests(path: string, found: string[]): string[] {
  if (statSync(path).isFile()) {
    found.push(path);
    return found;
  }
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory() && entry.name !== "node_modules") findTests(child, found);
    else if (entry.isFile() && entry.name.endsWith(".test.ts")) found.push(child);
  }
  return found;
}

const roots = process.argv.slice(2);
const files = (roots.length > 0 ? roots : ["src", "bench"]).flatMap((root) => findTests(root, [])).sort();
if (files.length === 0) {
  console.error("no test files found");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", "--test-concurrency=2", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
