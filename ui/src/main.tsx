/** The web UI's entry: a recorded run when the page carries one (`kvol sim run --html`), else the live cluster. */
import { render } from "preact";
import { LiveApp, RecordedApp } from "./components/app.tsx";
import { pageRecording } from "./data/recorded.ts";
import "./styles.css";

const root = document.getElementById("app");
if (root !== null) {
  const recording = pageRecording();
  render(recording === undefined ? <LiveApp /> : <RecordedApp recording={recording} />, root);
}
