/**
 * Reads a scenario file (`docs/scenarios.md`) into a checked `Scenario`. Every problem is a
 * ScenarioError naming the file, line and field; nothing here runs the cluster.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Fields } from "./fields.ts";
import type { Scenario } from "./model.ts";
import { readCluster } from "./read-cluster.ts";
import { readExpectations } from "./read-expectations.ts";
import { readTimeline } from "./read-timeline.ts";
import { ScenarioError } from "./scenario-error.ts";
import { YamlSource } from "./yaml-source.ts";

export const topLevelFields = ["name", "description", "seed", "until", "cluster", "timeline", "expect"] as const;

export interface ParseScenarioOptions {
  /** How errors name the file; also where `file:` manifests are resolved from. */
  readonly file: string;
}

/** Reads and checks the scenario at `path`; throws ScenarioError. */
export function loadScenarioFile(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : String(error);
    throw new ScenarioError(`${path}: cannot read the scenario file (${reason})`, path, 0);
  }
  return parseScenario(text, { file: path });
}

/** Checks scenario text; `file` names it in errors and anchors relative manifest files. */
export function parseScenario(text: string, options: ParseScenarioOptions): Scenario {
  const source = new YamlSource(text, options.file);
  const scenario = source.recover(() => readScenario(source, options), undefined);
  source.names.check(source);
  source.throwIfProblems();
  // Without a recorded problem nothing was abandoned, so the scenario was read.
  if (scenario === undefined) throw new Error(`${options.file}: the scenario was not read and no problem was recorded`);
  return scenario;
}

/** Reads every section, each on its own, so a mistake in one does not hide the mistakes in others. */
function readScenario(source: YamlSource, options: ParseScenarioOptions): Scenario {
  const fields: Fields = Fields.of(source, [], source.value, topLevelFields);
  const description = fields.string("description");
  const seed = fields.integer("seed");
  const untilMs = fields.duration("until");
  const name = source.recover(() => fields.requiredString("name"), undefined);
  const cluster = source.recover(() => readCluster(source, ["cluster"], fields.raw("cluster")), undefined);
  const timeline = source.recover(
    () =>
      readTimeline(source, ["timeline"], fields.raw("timeline"), {
        baseDir: options.file === "" ? process.cwd() : dirname(resolve(options.file)),
      }),
    [],
  );
  const expectations = source.recover(() => readExpectations(source, ["expect"], fields.raw("expect")), []);
  if (name === undefined || cluster === undefined) return source.abandon();
  return {
    name,
    ...(description === undefined ? {} : { description }),
    file: options.file === "" ? "" : resolve(options.file),
    ...(seed === undefined ? {} : { seed }),
    ...(untilMs === undefined ? {} : { untilMs }),
    cluster,
    timeline,
    expectations,
  };
}
