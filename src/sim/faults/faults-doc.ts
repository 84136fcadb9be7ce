/**
 * docs/faults.md, rendered from the catalogue: the page and the faults cannot drift apart, because
 * `faults-doc.test.ts` fails when the file differs from this rendering. Regenerate it with
 * `npx tsx src/sim/faults/write-faults-doc.ts`.
 */
import { faultCatalogue } from "./catalogue.ts";
import type { FaultDefinition, FaultParam } from "./fault.ts";

/** The page's path, from the repository root. */
export const faultsDocPath = "docs/faults.md";

const introduction = `# Faults

Everything that can go wrong in a simulated cluster, as storage engineers meet it in production.
A scenario (\`docs/scenarios.md\`) injects a fault on its timeline and may heal it later:

\`\`\`yaml
timeline:
  - at: 1m
    fault: { name: node-power-off, params: { node: node-a }, healAfter: 10m }
  - at: 2m
    fault: { name: api-latency, params: { delay: 5s } }
  - at: 4m
    heal: { name: api-latency, params: { delay: 5s } }
\`\`\`

\`kvol sim explore\` draws faults at random from the same catalogue, and \`kvol fault NAME key=value…\`
injects one into a running cluster. Durations are written as Go does (\`30s\`, \`2m\`, \`1m30s\`) or in
milliseconds. Faults without a heal are one-shot.

This page is generated from \`src/sim/faults/\`; do not edit it by hand.
`;

export function renderFaultsDoc(): string {
  const sections = [...faultCatalogue.values()].map(renderFault);
  return `${introduction}\n${renderIndex()}\n${sections.join("\n")}`;
}

function renderIndex(): string {
  const rows = [...faultCatalogue.values()].map(
    (fault) => `| [\`${fault.name}\`](#${fault.name}) | ${fault.heal === undefined ? "one-shot" : "until healed"} |`,
  );
  return ["| fault | lasts |", "|---|---|", ...rows, ""].join("\n");
}

function renderFault(fault: FaultDefinition): string {
  const lines = [
    `## ${fault.name}`,
    "",
    `**Models.** ${fault.models}`,
    "",
    `**Kubernetes reacts.** ${fault.kubernetesReaction}`,
    "",
  ];
  if (fault.healing !== undefined) lines.push(`**Heal.** ${fault.healing}`, "");
  lines.push(...renderParams(fault.params), "");
  return lines.join("\n");
}

function renderParams(params: readonly FaultParam[]): string[] {
  if (params.length === 0) return ["No parameters."];
  const rows = params.map((param) => {
    const need = param.required
      ? "required"
      : param.default === undefined
        ? "optional"
        : `default \`${param.default}\``;
    return `| \`${param.name}\` | ${param.type} | ${need} | ${param.description.replaceAll("|", "\\|")} |`;
  });
  return ["| parameter | type | | meaning |", "|---|---|---|---|", ...rows];
}
