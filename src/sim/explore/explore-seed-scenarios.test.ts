/**
 * Random faults against the seed incidents find no invariant violation. By default one seed of
 * three of them, to keep the suite quick; `KVOL_EXPLORE_SEEDS=N` explores N seeds of every seed
 * scenario (`kvol sim explore scenarios/00x-….yaml --seeds N` does the same from the command line).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { faultCatalogue } from "../faults/catalogue.ts";
import { loadScenarioFile } from "../scenario/load.ts";
import { exploreScenario } from "./explore.ts";
import { scenarioRuns } from "./scenario-runs.ts";
import { builtinScenarioFiles, scenariosDir } from "./testing/builtin-scenarios.ts";

const seedsFromEnvironment = Number(process.env.KVOL_EXPLORE_SEEDS ?? "0");
const thorough = Number.isSafeInteger(seedsFromEnvironment) && seedsFromEnvironment > 0;
const seeds = thorough ? seedsFromEnvironment : 1;
const quickSet = /^(000-|003-.*-fixed|004-.*-rwx)/;
const files = builtinScenarioFiles(thorough ? /^00[0-4]-/ : quickSet);

describe("kvol sim explore on the seed incidents", () => {
  it("explores the seed scenarios named", () => assert.ok(files.length >= 3, files.join(", ")));

  for (const name of files) {
    it(`${name}: ${seeds} seed(s) of random faults break no invariant`, async () => {
      const scenario = loadScenarioFile(`${scenariosDir}${name}`);
      const result = await exploreScenario(scenarioRuns(scenario), {
        file: `scenarios/${name}`,
        seeds,
        catalogue: [...faultCatalogue.values()],
      });
      assert.equal(result.failure, undefined, result.failure?.replayCommand);
      assert.equal(result.seedsRun, seeds);
    });
  }
});
