/**
 * The page: a header with the source and (for a recording) the moment shown, the graph, and for
 * the selected object its `kvol why` chain, desired against actual state and its timeline.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { Recording } from "../../../src/cli/webui/ui-data.ts";
import { Api, saveToken, takeToken } from "../data/api.ts";
import { LiveCluster } from "../data/live-cluster.ts";
import { openingTimeMs, recordedView } from "../data/recorded.ts";
import { clockLabel, inStory, storyOf, type ViewData } from "../data/view.ts";
import { DesiredActual } from "./desired-actual.tsx";
import { FaultPanel } from "./fault-panel.tsx";
import { Graph } from "./graph.tsx";
import { Timeline } from "./timeline.tsx";
import { WhyChain } from "./why-chain.tsx";

function Layout(props: {
  view: ViewData;
  selected: string;
  onSelect: (key: string) => void;
  cursorMs: number | undefined;
  onMoveTo: ((atMs: number) => void) | undefined;
  header: preact.ComponentChildren;
  faults: preact.ComponentChildren;
}) {
  const { view, selected } = props;
  const story = useMemo(
    () => (selected === "" ? undefined : storyOf(selected, view.objects)),
    [selected, view.objects],
  );
  const entries = story === undefined ? view.entries : view.entries.filter((entry) => inStory(entry, story));
  return (
    <div class="page">
      <header class="top">
        <div class="brand">
          kvol <span class="mode">{view.mode === "live" ? "live" : "recorded run"}</span>
        </div>
        <div class="title">{view.title}</div>
        <div class="status" data-testid="connection">
          {view.connection}
        </div>
      </header>
      {props.header}
      <section class="panel">
        <h2>Cluster</h2>
        {view.forbidden.length === 0 ? null : (
          <div class="notice forbidden" data-testid="forbidden">
            <p>Not shown: this user may not read {view.forbidden.map((line) => line.split(":")[0]).join(", ")}.</p>
            <ul>
              {view.forbidden.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
        )}
        <div class="graph-scroll">
          <Graph objects={view.objects} selected={selected} story={story} onSelect={props.onSelect} />
        </div>
      </section>
      <div class="columns">
        <section class="panel why-panel">
          <h2>Why {selected === "" ? "" : <span class="selected-name">{selected}</span>}</h2>
          {selected !== "" && view.why === undefined ? (
            <div class="empty">Telling why…</div>
          ) : (
            <WhyChain why={view.why} />
          )}
        </section>
        <section class="panel">
          <h2>Desired vs actual</h2>
          <DesiredActual states={view.states} story={story} unreadable={view.unreadable} />
        </section>
      </div>
      {props.faults}
      <section class="panel">
        <h2>Timeline {selected === "" ? "(whole cluster)" : <span class="selected-name">{selected}</span>}</h2>
        <Timeline view={view} entries={entries} cursorMs={props.cursorMs} onMoveTo={props.onMoveTo} />
      </section>
      {view.verdicts.length === 0 ? null : (
        <section class="panel">
          <h2>Expectations</h2>
          <ul class="verdicts">
            {view.verdicts.map((verdict) => (
              <li key={verdict.expectation} class={`verdict verdict-${verdict.status}`}>
                <span class="pill">{verdict.status}</span> {verdict.expectation}
                {verdict.detail ? <span class="verdict-detail"> — {verdict.detail}</span> : null}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

export function RecordedApp(props: { recording: Recording }) {
  const { recording } = props;
  const [atMs, setAtMs] = useState(() => openingTimeMs(recording));
  const [selected, setSelected] = useState(recording.focus);
  const view = recordedView(recording, atMs, selected);
  const header = (
    <div class="scrubber">
      <label for="moment">Moment</label>
      <input
        id="moment"
        type="range"
        min={recording.startMs}
        max={recording.endMs}
        step={1000}
        value={atMs}
        onInput={(event) => setAtMs(Number((event.currentTarget as HTMLInputElement).value))}
      />
      <span class="moment" data-testid="moment">
        {clockLabel(view.nowMs, recording.startMs, "recorded")}
      </span>
      <span class={`pill ${recording.passed ? "pill-ok" : "pill-bad"}`}>{recording.passed ? "PASSED" : "FAILED"}</span>
    </div>
  );
  return (
    <Layout
      view={view}
      selected={selected}
      onSelect={setSelected}
      cursorMs={atMs}
      onMoveTo={(moment) => setAtMs(Math.round(moment))}
      header={header}
      faults={null}
    />
  );
}

function TokenForm(props: { onToken: (token: string) => void; reason: string }) {
  const [token, setToken] = useState("");
  return (
    <div class="page">
      <section class="panel login">
        <h2>Sign in to the cluster</h2>
        <p>{props.reason}</p>
        <p>
          Paste a bearer token (the <code>token</code> of your kubeconfig user; <code>kvol up</code> prints a link that
          carries the administrator's).
        </p>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            props.onToken(token.trim());
          }}
        >
          <input
            type="password"
            value={token}
            onInput={(event) => setToken((event.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit">Open</button>
        </form>
      </section>
    </div>
  );
}

export function LiveApp() {
  const [token, setTokenState] = useState(() => takeToken());
  const [, setTick] = useState(0);
  const [selected, setSelected] = useState("");
  const cluster = useMemo(() => new LiveCluster(new Api(token), () => setTick((tick) => tick + 1)), [token]);
  useEffect(() => {
    cluster.start();
    return () => cluster.close();
  }, [cluster]);
  const view = cluster.view();
  if (view.connection.includes("Unauthorized") || view.connection.startsWith("401")) {
    return (
      <TokenForm
        reason={token === undefined ? "This cluster needs a token." : "The token was refused."}
        onToken={(value) => {
          saveToken(value);
          setTokenState(value);
        }}
      />
    );
  }
  const select = (key: string) => {
    setSelected(key);
    cluster.select(key);
  };
  const faults =
    view.faults === undefined || view.faults.length === 0 ? null : (
      <FaultPanel faults={view.faults} inject={(fault, params, heal) => cluster.inject(fault, params, heal)} />
    );
  return (
    <Layout
      view={view}
      selected={selected}
      onSelect={select}
      cursorMs={undefined}
      onMoveTo={undefined}
      header={null}
      faults={faults}
    />
  );
}
