import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { loadScenarioFile, parseScenario } from "./load.ts";
import { ScenarioError } from "./scenario-error.ts";

const actionList =
  "apply, delete, patch, taint, untaint, cordon, uncordon, fence, unfence, registerCsiDriver, unregisterCsiDriver, scale, addNode, fault, heal, write";
const fixtures = join(dirname(fileURLToPath(import.meta.url)), "..", "runner", "fixtures");

/** The message parsing `text` fails with. */
function errorOf(text: string): string {
  try {
    parseScenario(text, { file: "scenario.yaml" });
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `expected a ScenarioError, got ${String(error)}`);
    return error.message;
  }
  assert.fail("the scenario was accepted");
}

const header = "name: test\n";
/** Declares the nodes the steps below name. */
const nodes = "cluster:\n  nodes:\n    - name: a\n    - name: node-a\n";

describe("scenario files", () => {
  it("reads a complete scenario", () => {
    const scenario = loadScenarioFile(join(fixtures, "passing.yaml"));
    assert.equal(scenario.name, "a pod with a claim starts, keeps its data and is deleted");
    assert.equal(scenario.seed, 5);
    assert.equal(scenario.untilMs, 120_000);
    assert.deepEqual(scenario.cluster.nodes, [{ name: "node-a", zone: "zone-1" }]);
    assert.deepEqual(scenario.cluster.storageClasses[0], {
      apiVersion: "storage.k8s.io/v1",
      kind: "StorageClass",
      metadata: { name: "standard" },
      provisioner: "kvol.io/sim-disk",
      volumeBindingMode: "WaitForFirstConsumer",
    });
    assert.deepEqual(
      scenario.timeline.map((step) => [step.atMs, step.action.type, step.line]),
      [
        [0, "apply", 13],
        [30_000, "write", 15],
        [40_000, "cordon", 17],
        [60_000, "delete", 19],
      ],
    );
    const apply = scenario.timeline[0]?.action;
    assert.ok(apply?.type === "apply" && typeof apply.manifests === "string" && apply.manifests.includes("data-app"));
    assert.deepEqual(scenario.timeline[3]?.action, {
      type: "delete",
      object: { kind: "Pod", namespace: "default", name: "app" },
      force: false,
    });
    assert.equal(scenario.timeline[3]?.note, "the operator deletes the pod");
    assert.deepEqual(
      scenario.expectations.map((expectation) => [expectation.kind, expectation.line]),
      [
        ["eventually", 23],
        ["eventually", 25],
        ["eventually", 27],
        ["eventually", 29],
        ["never", 32],
        ["never-violated", 33],
        ["event", 34],
        ["event", 35],
        ["eventually", 36],
        ["final", 39],
        ["final", 40],
      ],
    );
  });

  it("names the line and the field of a bad duration", () => {
    const text = `${header}${nodes}timeline:\n  - at: 0s\n    cordon: node-a\n  - at: 5x\n    cordon: node-a\n`;
    assert.equal(errorOf(text), 'scenario.yaml:9: timeline[1].at: "5x" is not a duration (use 30s, 2m, 1h5m)');
  });

  it("refuses unknown fields, listing the known ones", () => {
    assert.equal(
      errorOf(`${header}cluster:\n  nodes:\n    - name: node-a\n      zon: zone-1\n`),
      "scenario.yaml:5: cluster.nodes[0].zon: unknown field (expected one of name, zone, labels, taints, withoutCommands, systemd, utilLinux, repairCorruptedCsiMounts)",
    );
    assert.match(errorOf(`${header}expectations: []\n`), /^scenario.yaml:2: expectations: unknown field/);
  });

  it("suggests the timer meant when one is misspelt", () => {
    assert.equal(
      errorOf(`${header}cluster:\n  timers:\n    adcMaxWaitForUnmount: 6m\n`),
      'scenario.yaml:4: cluster.timers.adcMaxWaitForUnmount: "adcMaxWaitForUnmount" is not a timer (did you mean adcMaxWaitForUnmountMs, adcPvcWorkerPeriodMs, csiTimeoutMs?)',
    );
  });

  it("converts timer values by their unit", () => {
    const scenario = parseScenario(
      `${header}cluster:\n  timers:\n    adcMaxWaitForUnmountMs: 1m\n    defaultUnreachableTolerationSeconds: 30s\n    defaultNotReadyTolerationSeconds: 20\n    provisionedPvCreateRetries: 2\n`,
      { file: "scenario.yaml" },
    );
    assert.deepEqual(scenario.cluster.timers, {
      adcMaxWaitForUnmountMs: 60_000,
      defaultUnreachableTolerationSeconds: 30,
      defaultNotReadyTolerationSeconds: 20,
      provisionedPvCreateRetries: 2,
    });
  });

  it("points at the column of a condition that does not parse", () => {
    const text = `${header}expect:\n  - eventually: pod web-0 phase Running\n    within: 1m\n`;
    assert.equal(
      errorOf(text),
      'scenario.yaml:3: expect[0].eventually: expected "is" after "phase", found "Running" at column 17\n' +
        "  pod web-0 phase Running\n                  ^",
    );
  });

  it("asks for exactly one action per step and one kind per expectation", () => {
    assert.equal(
      errorOf(`${header}${nodes}timeline:\n  - at: 1m\n    cordon: a\n    uncordon: a\n`),
      `scenario.yaml:7: timeline[0]: a step has exactly one action (${actionList}); found cordon and uncordon`,
    );
    assert.match(
      errorOf(`${header}timeline:\n  - at: 1m\n`),
      /^scenario.yaml:3: timeline\[0\]: a step has exactly one action .*found none$/,
    );
    assert.match(
      errorOf(`${header}expect:\n  - final: pod a is absent\n    eventually: pod a is absent\n`),
      /^scenario.yaml:3: expect\[0\]: an expectation has exactly one of eventually, never, event, log, final; found eventually and final$/,
    );
  });

  it("requires what has no default", () => {
    assert.equal(errorOf("seed: 1\n"), "scenario.yaml:1: (top level): name is required");
    assert.equal(
      errorOf(`${header}expect:\n  - eventually: pod a is absent\n`),
      "scenario.yaml:3: expect[0]: within is required",
    );
    assert.equal(
      errorOf(`${header}${nodes}timeline:\n  - cordon: a\n`),
      "scenario.yaml:7: timeline[0]: at is required",
    );
  });

  it("keeps the timeline in time order", () => {
    assert.equal(
      errorOf(`${header}${nodes}timeline:\n  - at: 2m\n    cordon: a\n  - at: 1m\n    cordon: a\n`),
      "scenario.yaml:9: timeline[1].at: steps must be in time order: this one is earlier than the step before",
    );
  });

  it("checks faults against the catalogue and invariants by name", () => {
    assert.match(
      errorOf(`${header}timeline:\n  - at: 1m\n    fault: { name: node-explodes }\n`),
      /^scenario.yaml:4: timeline\[0\].fault.name: unknown fault "node-explodes"; known faults: .*node-power-off/,
    );
    assert.match(
      errorOf(`${header}timeline:\n  - at: 1m\n    fault: { name: node-power-off }\n`),
      /^scenario.yaml:4: timeline\[0\].fault.params: .*"node" is required/,
    );
    assert.match(
      errorOf(`${header}expect:\n  - never: { invariant: rwo-single-atach }\n`),
      /^scenario.yaml:3: expect\[0\].never.invariant: "rwo-single-atach" is not an invariant \(known: rwo-single-attach, /,
    );
  });

  it("reads manifests from files beside the scenario, and reports a missing one", () => {
    const scenario = parseScenario(
      `${header}timeline:\n  - at: 0s\n    apply: { file: manifests/app-with-claim.yaml }\n`,
      {
        file: join(fixtures, "inline.yaml"),
      },
    );
    assert.equal(scenario.timeline[0]?.action.type, "apply");
    assert.match(
      errorOf(`${header}timeline:\n  - at: 0s\n    apply: { file: missing.yaml }\n`),
      /^scenario.yaml:4: timeline\[0\].apply.file: cannot read .*missing.yaml \(ENOENT\)$/,
    );
    assert.match(
      errorOf(`${header}timeline:\n  - at: 0s\n    apply: "kind: Gizmo\\nmetadata: { name: a }"\n`),
      /^scenario.yaml:4: timeline\[0\].apply: manifest 1: kind "Gizmo" is not one kvol stores/,
    );
  });

  it("reports YAML that does not parse at its line and column", () => {
    assert.match(
      errorOf(`${header}seed: [1, 2\nuntil: 3m\nexpect: []\n`),
      /^scenario.yaml:3:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a \]$/,
    );
    assert.match(
      errorOf(`${header}seed: 1\nname: again\n`),
      /^scenario.yaml:3:1: not valid YAML: Map keys must be unique/,
    );
    assert.match(
      errorOf(`${header}timeline:\n  - at: 1m\n   cordon: a\n`),
      /^scenario.yaml:4:1: not valid YAML: Sequence item without - indicator$/,
      "a mis-indented key is reported on its own line, not on line 1",
    );
  });

  it("reports an alias to an anchor not set before it at the alias's line, not as a crash", () => {
    assert.match(
      errorOf(`${header}seed: &s 1\nuntil: *later\n`),
      /^scenario.yaml:3: not valid YAML: Unresolved alias \(the anchor must be set before the alias\): later$/,
    );
  });

  it("reports every mistake of a file at once, each at its line and field", () => {
    const text = [
      "name: test",
      "cluster:",
      "  nodes:",
      "    - { name: node-a, systemd: init, utilLinux: 9 }",
      "timeline:",
      "  - at: 5x",
      "    cordon: node-a",
      "  - at: 1m",
      "    cordon: node-b",
      "expect:",
      "  - eventually: pod web-0 phase Running",
      "    within: 1m",
      "  - never: { invariant: no-such }",
    ].join("\n");
    const lines = errorOf(text)
      .split("\n")
      .filter((line) => line.startsWith("scenario.yaml:"));
    assert.deepEqual(
      lines.map((line) => line.split(": ").slice(0, 2).join(": ")),
      [
        "scenario.yaml:4: cluster.nodes[0].systemd",
        "scenario.yaml:4: cluster.nodes[0].utilLinux",
        "scenario.yaml:6: timeline[0].at",
        "scenario.yaml:9: timeline[1].cordon",
        "scenario.yaml:11: expect[0].eventually",
        "scenario.yaml:13: expect[1].never.invariant",
      ],
    );
  });

  it("checks every node, driver and StorageClass a scenario names against what it declares", () => {
    const text = [
      "name: test",
      "cluster:",
      "  nodes: [{ name: node-a }]",
      "  csiDrivers: [{ name: mock.csi.kvol.io }]",
      "  storageClasses:",
      "    - { metadata: { name: standard }, provisioner: kvol.io/sim-disk }",
      "timeline:",
      "  - at: 0s",
      "    apply: |",
      "      apiVersion: v1",
      "      kind: PersistentVolumeClaim",
      "      metadata: { name: data }",
      "      spec: { storageClassName: fast, accessModes: [ReadWriteOnce], resources: { requests: { storage: 1Gi } } }",
      "  - at: 1m",
      "    fault: { name: kubelet-restart, params: { node: node-c } }",
      "  - at: 1m",
      "    taint: { node: node-b, key: k, effect: NoSchedule }",
      "  - at: 2m",
      "    fault: { name: csi-node-plugin-restart, params: { node: node-a, driver: fuse.csi.kvol.io } }",
      "  - at: 3m",
      "    addNode: { name: node-b }",
      "expect:",
      "  - eventually: mount of pod web-0 volume data on node-z is healthy",
      "    within: 1m",
      "  - eventually: pod web-0 node is node-b",
      "    within: 1m",
    ].join("\n");
    assert.deepEqual(errorOf(text).split("\n"), [
      'scenario.yaml:9: timeline[0].apply.manifest 1 (PersistentVolumeClaim data): no StorageClass named "fast" (StorageClasses: standard; did you mean standard?)',
      'scenario.yaml:15: timeline[1].fault.params.node: no node named "node-c" (nodes: node-a, node-b; did you mean node-a?)',
      'scenario.yaml:17: timeline[2].taint.node: node "node-b" is used before it joins the cluster (its addNode step is at 3m)',
      'scenario.yaml:19: timeline[3].fault.params.driver: no CSI driver named "fuse.csi.kvol.io" (the scenario\'s csiDrivers: mock.csi.kvol.io; did you mean mock.csi.kvol.io?)',
      'scenario.yaml:23: expect[0].eventually: no node named "node-z" at column 35 (nodes: node-a, node-b; did you mean node-a?)',
    ]);
  });

  it("reports a file that cannot be read", () => {
    assert.throws(() => loadScenarioFile(join(fixtures, "absent.yaml")), {
      name: "ScenarioError",
      message: /absent.yaml: cannot read the scenario file \(ENOENT\)$/,
    });
  });
});
