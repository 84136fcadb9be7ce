/**
 * Desired against actual state, side by side, for the selected object's volumes: the kubelet's
 * volume manager on each node of the story and the attach/detach controller, with the operations
 * running or backing off. Read from the debug endpoints (administrators) or from the recording.
 */
import type { OperationDebugState } from "../../../src/api/debug/debug-state.ts";
import type { ComponentStates } from "../../../src/api/debug/state-changes.ts";
import type { Story } from "../data/view.ts";

function shortVolume(volumeName: string): string {
  return volumeName.split(/[/^]/).at(-1) ?? volumeName;
}

function Operations(props: { operations: readonly OperationDebugState[] }) {
  if (props.operations.length === 0) return null;
  return (
    <ul class="operations">
      {props.operations.map((operation) => (
        <li
          key={`${operation.operationName}${operation.volumeName}${operation.podName}`}
          class={operation.lastError ? "op-failed" : "op-running"}
        >
          <b>{operation.operationName}</b> {shortVolume(operation.volumeName)}
          {operation.running ? <span class="pill pill-running">running</span> : null}
          {operation.lastError ? (
            <div class="op-error">
              {operation.lastError}
              <div class="op-retry">
                no retries permitted until {operation.noRetriesPermittedUntil} (durationBeforeRetry{" "}
                {operation.durationBeforeRetry})
              </div>
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function Side(props: { title: string; rows: { key: string; main: string; detail: string; tone: string }[] }) {
  return (
    <div class="side">
      <h4>{props.title}</h4>
      {props.rows.length === 0 ? <div class="empty">nothing</div> : null}
      <ul>
        {props.rows.map((row) => (
          <li key={row.key} class={`state-row tone-${row.tone}`}>
            <div class="state-main">{row.main}</div>
            <div class="state-detail">{row.detail}</div>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function DesiredActual(props: {
  states: ComponentStates;
  story: Story | undefined;
  unreadable: readonly string[];
}) {
  const story = props.story;
  const volumeNames = story?.volumes ?? [];
  const nodes = [...(story?.keys ?? [])].filter((key) => key.startsWith("node/")).map((key) => key.slice(5));
  const ours = (volumeName: string) => story === undefined || volumeNames.some((name) => volumeName.includes(name));
  const kubelets = Object.entries(props.states.kubelets).filter(
    ([node]) => story === undefined || nodes.includes(node),
  );
  const adc = props.states.attachDetach;
  return (
    <div class="desired-actual">
      {props.unreadable.length > 0 ? (
        <div class="notice">
          Not read: {props.unreadable.length} debug endpoint(s) — {props.unreadable[0]}
        </div>
      ) : null}
      {adc === undefined ? null : (
        <section class="component">
          <h3>Attach/detach controller</h3>
          <div class="sides">
            <Side
              title="Desired"
              rows={adc.desiredStateOfWorld
                .filter((volume) => ours(volume.volumeName))
                .map((volume) => ({
                  key: `${volume.volumeName}@${volume.nodeName}`,
                  main: `${shortVolume(volume.volumeName)} → ${volume.nodeName}`,
                  detail: `for ${volume.pods.map((pod) => `${pod.namespace}/${pod.name}`).join(", ")}${volume.multiAttachErrorReported ? " · Multi-Attach reported" : ""}`,
                  tone: volume.multiAttachErrorReported ? "bad" : "ok",
                }))}
            />
            <Side
              title="Actual"
              rows={adc.actualStateOfWorld
                .filter((volume) => ours(volume.volumeName))
                .map((volume) => ({
                  key: `${volume.volumeName}@${volume.nodeName}`,
                  main: `${shortVolume(volume.volumeName)} ${volume.attachState} on ${volume.nodeName}`,
                  detail: [
                    volume.mountedByNode ? "in use by the node" : "not in use by the node",
                    volume.detachRequestedTime ? `detach requested ${volume.detachRequestedTime.slice(11, 19)}` : "",
                    volume.forceDetachTime ? `force-detach at ${volume.forceDetachTime.slice(11, 19)}` : "",
                  ]
                    .filter((part) => part !== "")
                    .join(" · "),
                  tone: volume.detachRequestedTime ? "waiting" : "ok",
                }))}
            />
          </div>
          <Operations operations={adc.operations.filter((operation) => ours(operation.volumeName))} />
        </section>
      )}
      {kubelets.map(([node, state]) => (
        <section class="component" key={node}>
          <h3>Kubelet volume manager · {node}</h3>
          <div class="sides">
            <Side
              title="Desired"
              rows={state.desiredStateOfWorld
                .filter((volume) => ours(volume.volumeName))
                .map((volume) => ({
                  key: volume.volumeName,
                  main: shortVolume(volume.volumeName),
                  detail: `for ${volume.pods.map((pod) => `${pod.namespace}/${pod.name}`).join(", ")}${volume.pluginIsAttachable && !volume.reportedInUse ? " · not yet reported in use" : ""}`,
                  tone: "ok",
                }))}
            />
            <Side
              title="Actual"
              rows={state.actualStateOfWorld
                .filter((volume) => ours(volume.volumeName))
                .map((volume) => ({
                  key: volume.volumeName,
                  main: `${shortVolume(volume.volumeName)} ${volume.deviceMountState}`,
                  detail:
                    volume.pods
                      .map((pod) => `${pod.volumeMountState}${pod.reconstructed ? " (reconstructed)" : ""}`)
                      .join(", ") || "no pod mounts",
                  tone: volume.deviceMountState.includes("Uncertain") ? "bad" : "ok",
                }))}
            />
          </div>
          <Operations operations={state.operations.filter((operation) => ours(operation.volumeName))} />
        </section>
      ))}
      {adc === undefined && kubelets.length === 0 && props.unreadable.length === 0 ? (
        <div class="empty">No component state for this object.</div>
      ) : null}
    </div>
  );
}
