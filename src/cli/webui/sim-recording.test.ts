import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { loadScenarioFile } from "../../sim/scenario/load.ts";
import { scenarioPath } from "../why/testing/scenario-api.ts";
import { htmlReport } from "./html-report.ts";
import { type RecordedRun, recordScenario } from "./sim-recording.ts";

const file = "004-rbd-node-shutdown-rwx.yaml";
const minuteMs = 60_000;

async function record() {
  return recordScenario(loadScenarioFile(scenarioPath(file)), file, { untilMs: 8 * minuteMs });
}

describe("kvol sim run --html: the recorded run", () => {
  let first: RecordedRun;
  before(async () => {
    first = await record();
  });

  it("seed 004 to 8 min: the same recording twice, the stuck replacement pod in focus with its Multi-Attach chain", async () => {
    const second = await record();
    assert.equal(JSON.stringify(first.recording), JSON.stringify(second.recording));
    const { recording } = first;
    assert.match(recording.focus, /^pod\/sock-shop\/user-db-78fcc96848-/);
    const last = recording.snapshots.at(-1);
    const why = last?.why[recording.focus];
    assert.ok(why !== undefined, "the focused pod has a why report at 8 min");
    const chain = why.links.map((link) => `${link.subject}: ${link.state}`).join("\n");
    assert.match(chain, /pv user-pv: not attached to node node-b: Multi-Attach, the volume is attached to node node-a/);
    assert.match(chain, /node node-a: NotReady/);
    assert.ok(
      why.remedy.some((step) =>
        step.includes("kubectl taint nodes node-a node.kubernetes.io/out-of-service=nodeshutdown:NoExecute"),
      ),
      why.remedy.join("\n"),
    );
    // Snapshots every 15 s of run time, the first at 0.
    assert.equal(recording.snapshots[1]?.atMs, recording.startMs + 15_000);
  });

  it("records the attach/detach controller's states as they change: Multi-Attach in its desired state, the attachment to node-a", async () => {
    const { recording } = first;
    const lane = recording.entries.filter((entry) => entry.lane === "attachdetach").map((entry) => entry.message);
    assert.ok(lane.includes("desired: sock_shop:user-pv attached to node-b (Multi-Attach reported)"), lane.join("\n"));
    assert.ok(lane.includes("actual: sock_shop:user-pv Attached on node-a, in use by the node"), lane.join("\n"));
    const warning = recording.entries.find((entry) => entry.kind === "warning" && entry.lane === "attachdetach");
    assert.match(warning?.message ?? "", /^Warning FailedAttachVolume: Multi-Attach error for volume "user-pv"/);
    // 6m50s: the taint manager evicts the old pod, the replacement is scheduled and fails to attach.
    assert.equal((warning?.atMs ?? 0) - recording.startMs, 6 * minuteMs + 50_100);
  });

  it("writes one self-contained page: script, style and data inlined, nothing fetched", async () => {
    const { recording } = first;
    const html = await htmlReport(recording);
    assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=/);
    assert.match(html, /<script type="application\/json" id="kvol-recording">\{"kind":"KvolRecording"/);
    assert.match(html, /<style>[^<]*\.graph/);
    // The recording cannot close its element early, whatever a message holds.
    const data = html.slice(html.indexOf('id="kvol-recording">'), html.indexOf("</script>"));
    assert.doesNotMatch(data.slice(20), /</);
  });
});
