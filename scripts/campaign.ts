/**
 * `npm run campaign -- --schedules N --budget T`: the fault campaign over the built-in scenarios
 * (`src/cli/campaign-command.ts`, `docs/campaigns.md`).
 */
import { runCampaignCommand } from "../src/cli/campaign-command.ts";

process.exitCode = await runCampaignCommand(process.argv.slice(2));
