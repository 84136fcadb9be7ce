/**
 * Fault injection on a running cluster, for administrators: the catalogue's faults that apply to
 * this cluster now, each with the parameter sets it can take here (the server lists them).
 */
import { useState } from "preact/hooks";
import type { FaultOffer } from "../data/view.ts";

function targetLabel(target: Record<string, unknown>): string {
  const words = Object.entries(target).map(([key, value]) => `${key}=${String(value)}`);
  return words.length === 0 ? "(no parameters)" : words.join(" ");
}

export function FaultPanel(props: {
  faults: readonly FaultOffer[];
  inject: (fault: string, params: Record<string, unknown>, heal: boolean) => Promise<string>;
}) {
  const [faultName, setFaultName] = useState(props.faults[0]?.name ?? "");
  const [targetIndex, setTargetIndex] = useState(0);
  const [outcome, setOutcome] = useState("");
  const fault = props.faults.find((candidate) => candidate.name === faultName) ?? props.faults[0];
  if (fault === undefined) return null;
  const target = fault.targets[targetIndex] ?? fault.targets[0] ?? {};
  const run = (heal: boolean) => {
    setOutcome("…");
    props
      .inject(fault.name, target, heal)
      .then(setOutcome, (error: unknown) =>
        setOutcome(`failed: ${error instanceof Error ? error.message : String(error)}`),
      );
  };
  return (
    <section class="panel faults">
      <h2>Inject a fault</h2>
      <div class="fault-form">
        <select
          aria-label="fault"
          value={fault.name}
          onChange={(event) => {
            setFaultName((event.currentTarget as HTMLSelectElement).value);
            setTargetIndex(0);
          }}
        >
          {props.faults.map((offer) => (
            <option key={offer.name} value={offer.name}>
              {offer.name}
            </option>
          ))}
        </select>
        <select
          aria-label="target"
          value={String(targetIndex)}
          onChange={(event) => setTargetIndex(Number((event.currentTarget as HTMLSelectElement).value))}
        >
          {fault.targets.map((offer, index) => (
            <option key={targetLabel(offer)} value={String(index)}>
              {targetLabel(offer)}
            </option>
          ))}
        </select>
        <button type="button" class="danger" onClick={() => run(false)}>
          Inject
        </button>
        {fault.lasting ? (
          <button type="button" onClick={() => run(true)}>
            Heal
          </button>
        ) : null}
      </div>
      <p class="fault-models">{fault.models}</p>
      {outcome === "" ? null : <p class="fault-outcome">{outcome}</p>}
    </section>
  );
}
