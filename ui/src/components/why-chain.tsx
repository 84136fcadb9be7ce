/** The `kvol why` chain of the selected object: each link with its evidence, then what to do. */
import type { WhyJson } from "../../../src/cli/webui/ui-data.ts";

export function WhyChain(props: { why: WhyJson | { error: string } | undefined }) {
  const why = props.why;
  if (why === undefined) return <div class="empty">Choose a pod, claim, volume or node in the graph.</div>;
  if ("error" in why) return <div class="empty why-none">{why.error}</div>;
  return (
    <div class="why">
      <ol class="chain">
        {why.links.map((link, depth) => (
          <li key={`${depth}-${link.subject}`} class="link" style={{ marginLeft: `${depth * 14}px` }}>
            <div class="link-head">
              <span class="link-subject">{link.subject}</span>
              <span class="link-state">{link.state}</span>
              {link.age === undefined ? null : <span class="pill">for {link.age}</span>}
            </div>
            {link.evidence.length === 0 ? null : (
              <ul class="evidence">
                {link.evidence.map((evidence) => (
                  <li key={evidence}>{evidence}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {why.remedy.length === 0 ? null : (
        <div class="remedy">
          <h4>What to do</h4>
          <ul>
            {why.remedy.map((step) => (
              <li key={step}>
                {step
                  .split(/((?:kubectl|kvol) [^;)\n]+)/)
                  .map((part, index) => (index % 2 === 1 ? <code key={part}>{part}</code> : part))}
              </li>
            ))}
          </ul>
        </div>
      )}
      {why.unreadable.length === 0 ? null : (
        <div class="notice">Not read (the chain was told without it): {why.unreadable.join("; ")}</div>
      )}
    </div>
  );
}
