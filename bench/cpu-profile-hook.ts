/**
 * Loaded with `--import` into the benchmark process by `npm run profile` (profile.ts): starts
 * V8's CPU profiler at once and, when the process has nothing left to do, stops it and writes the
 * profile to `$KVOL_PROFILE_FILE`. Positions are mapped back to the TypeScript sources through
 * the source maps tsx registered, so file:line in the profile (and in DevTools) are the .ts lines.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { findSourceMap } from "node:module";
import type { CpuProfile } from "./cpu-profile-summary.ts";

const outputFile = process.env.KVOL_PROFILE_FILE;
const intervalUs = Number(process.env.KVOL_PROFILE_INTERVAL_US ?? "1000");

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T)));
  });
}

/** Rewrites each frame of a transpiled file to its place in the original source. */
function mapToSources(profile: CpuProfile): void {
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    if (!frame.url.startsWith("file://")) continue;
    const entry = findSourceMap(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
    if (entry === undefined || !("originalLine" in entry)) continue;
    frame.url = entry.originalSource;
    frame.lineNumber = entry.originalLine;
    frame.columnNumber = entry.originalColumn;
  }
}

if (outputFile !== undefined) {
  const session = new Session();
  session.connect();
  await post(session, "Profiler.enable");
  await post(session, "Profiler.setSamplingInterval", { interval: intervalUs });
  await post(session, "Profiler.start");
  let stopped = false;
  process.on("beforeExit", () => {
    if (stopped) return;
    stopped = true;
    void post<{ profile: CpuProfile }>(session, "Profiler.stop").then(({ profile }) => {
      mapToSources(profile);
      writeFileSync(outputFile, JSON.stringify(profile));
      session.disconnect();
    });
  });
}
