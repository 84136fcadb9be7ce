/**
 * Every versioned kubectl present beside the `kubectl` dispatcher (`kubectl.1.27` … `kubectl.1.33`)
 * against one `kvol up`: each runs the matrix of commands below in its own namespace. kubectl 1.32
 * and newer send built-in kinds as Kubernetes protobuf and ask for protobuf answers, so the matrix
 * covers both wire formats. The newest one also runs with `-v=8`, and every request it logs must
 * succeed (the only refusals allowed are the 404s by which kubectl learns that an object is absent:
 * an evicted pod is gone, a namespace deleted, an object to apply not there yet).
 *
 * Runs under CI=true (where a missing versioned kubectl fails it) or with KVOL_E2E=1; skipped
 * otherwise with the reason printed. To cover another command, add a step to `matrix`.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { RealClock } from "../runtime/real-clock.ts";
import { type KvolUp, startKvolUp, stopKvolUp } from "./kvol-up-process.ts";
import { type CommandRun as Run, runCommand } from "./testing/run-command.ts";

const clock = new RealClock();
const podsRunningTimeoutMs = 60_000;
const commandTimeoutMs = 90_000;
const watchSeenTimeoutMs = 20_000;
const pollMs = 300;

interface Kubectl {
  minor: number;
  path: string;
}

/** The versioned binaries beside the dispatcher, oldest first. */
function versionedKubectls(): Kubectl[] {
  const found = spawnSync("sh", ["-c", "command -v kubectl"], { encoding: "utf8" });
  if (found.status !== 0) return [];
  const directory = dirname(realpathSync(found.stdout.trim()));
  return readdirSync(directory)
    .map((name) => /^kubectl\.1\.(\d+)$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ minor: Number(match[1]), path: join(directory, match[0]) }))
    .sort((a, b) => a.minor - b.minor);
}

function run(binary: string, kubeconfig: string, args: readonly string[]): Promise<Run> {
  return runCommand(binary, args, { ...process.env, KUBECONFIG: kubeconfig }, commandTimeoutMs);
}

/** What one step of the matrix gets: the kubectl under test, its namespace, and a way to run it. */
interface StepContext {
  kubectl: Kubectl;
  kubeconfig: string;
  namespace: string;
  /** Runs this kubectl (with `-v=8` for the newest, whose requests are then checked). */
  kubectl$(args: readonly string[]): Promise<Run>;
  /** Runs this kubectl without logging, for a step's own checks. */
  quiet(args: readonly string[]): Promise<Run>;
}

interface Step {
  name: string;
  run(context: StepContext): Promise<void>;
}

function succeeded(result: Run, what: string): string {
  assert.equal(result.status, 0, `${what} failed:\n${result.stderr.slice(-4000)}\n${result.stdout}`);
  return result.stdout;
}

async function eventually<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = clock.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (clock.now() > deadline) assert.fail(`${what}: not within ${timeoutMs / 1000} s`);
    await clock.sleep(pollMs);
  }
}

/** Node of every running pod of the namespace's `web` Deployment, once all its replicas run. */
async function runningWebPods(context: StepContext, replicas: number): Promise<Map<string, string>> {
  return eventually(`${replicas} pods of deployment web running`, podsRunningTimeoutMs, async () => {
    const listed = await context.quiet([
      "get",
      "pods",
      "-n",
      context.namespace,
      "-l",
      "app=web",
      "-o",
      "jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.metadata.deletionTimestamp}{'\\n'}{end}",
    ]);
    const pods = new Map<string, string>();
    for (const line of listed.stdout.split("\n")) {
      const [name, node, phase, deleting] = line.trim().split(" ");
      if (name && node && phase === "Running" && !deleting) pods.set(name, node);
    }
    return pods.size === replicas ? pods : undefined;
  });
}

const matrix: readonly Step[] = [
  {
    name: "create configmap",
    async run(context) {
      const out = await context.kubectl$([
        "create",
        "configmap",
        "greeting",
        "-n",
        context.namespace,
        "--from-literal=text=hello",
      ]);
      assert.match(succeeded(out, "create configmap"), /^configmap\/greeting created$/m);
      const yaml = succeeded(
        await context.kubectl$(["get", "configmap", "greeting", "-n", context.namespace, "-o", "yaml"]),
        "get -o yaml",
      );
      assert.match(yaml, /^data:\n {2}text: hello$/m);
    },
  },
  {
    name: "create secret generic --from-literal",
    async run(context) {
      const out = await context.kubectl$([
        "create",
        "secret",
        "generic",
        "db",
        "-n",
        context.namespace,
        "--from-literal=password=hunter2",
      ]);
      assert.match(succeeded(out, "create secret"), /^secret\/db created$/m);
      const data = await context.quiet([
        "get",
        "secret",
        "db",
        "-n",
        context.namespace,
        "-o",
        "jsonpath={.data.password}",
      ]);
      assert.equal(succeeded(data, "get secret"), "aHVudGVyMg==", "the secret's value is stored as base64 of hunter2");
    },
  },
  {
    name: "create deployment",
    async run(context) {
      const out = await context.kubectl$([
        "create",
        "deployment",
        "web",
        "-n",
        context.namespace,
        "--image=nginx",
        "--replicas=2",
      ]);
      assert.match(succeeded(out, "create deployment"), /^deployment\.apps\/web created$/m);
      await runningWebPods(context, 2);
      const table = succeeded(
        await context.kubectl$(["get", "deployment", "web", "-n", context.namespace]),
        "get deployment",
      );
      assert.match(table, /^web\s+2\/2\s+2\s+2\s+/m);
    },
  },
  {
    name: "drain (cordon, evict the node's pods)",
    async run(context) {
      const pods = await runningWebPods(context, 2);
      const [victim, node] = [...pods][0] ?? assert.fail("no pod to evict");
      const drained = await context.kubectl$([
        "drain",
        node,
        "--ignore-daemonsets",
        "--delete-emptydir-data",
        "--timeout=60s",
      ]);
      const out = succeeded(drained, `drain ${node}`);
      assert.match(out, new RegExp(`^node/${node} cordoned$`, "m"));
      assert.match(`${out}${drained.stderr}`, new RegExp(`evicting pod ${context.namespace}/${victim}`));
      assert.match(out, new RegExp(`^node/${node} drained$`, "m"));
      const unschedulable = await context.quiet(["get", "node", node, "-o", "jsonpath={.spec.unschedulable}"]);
      assert.equal(succeeded(unschedulable, "get node"), "true");
      // The Deployment replaces the evicted pod on another node.
      const replaced = await runningWebPods(context, 2);
      assert.ok(![...replaced.values()].includes(node), `a pod still runs on the drained ${node}`);
      assert.ok(!replaced.has(victim), `${victim} was not evicted`);
      succeeded(await context.quiet(["uncordon", node]), `uncordon ${node}`);
    },
  },
  {
    name: "logs",
    async run(context) {
      const [pod] = [...(await runningWebPods(context, 2)).keys()];
      const logs = await context.kubectl$(["logs", pod ?? "", "-n", context.namespace]);
      assert.ok(succeeded(logs, `logs ${pod}`).length > 0, `kubectl logs ${pod} printed nothing`);
    },
  },
  {
    name: "auth can-i",
    async run(context) {
      const answer = await context.kubectl$(["auth", "can-i", "create", "pods", "-n", context.namespace]);
      assert.equal(succeeded(answer, "auth can-i").trim(), "yes");
    },
  },
  {
    name: "apply --validate=strict with an unknown field",
    async run(context) {
      const file = manifestFile(context, "bogus-claim.yaml", {
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "bogus", namespace: context.namespace },
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, bogusField: true },
      });
      // Refused on purpose: not through kubectl$, whose every request must succeed.
      const refused = await context.quiet(["apply", "--validate=strict", "-f", file]);
      assert.notEqual(refused.status, 0, "a claim with spec.bogusField was accepted under --validate=strict");
      assert.match(refused.stderr, /unknown field "spec\.bogusField"/);
      const stored = await context.quiet(["get", "pvc", "bogus", "-n", context.namespace]);
      assert.notEqual(stored.status, 0, "the refused claim was stored");
    },
  },
  {
    name: "scale statefulset, rollout history",
    async run(context) {
      const file = manifestFile(context, "statefulset.yaml", {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: { name: "db", namespace: context.namespace },
        spec: {
          serviceName: "db",
          replicas: 1,
          selector: { matchLabels: { app: "db" } },
          template: {
            metadata: { labels: { app: "db" } },
            spec: { containers: [{ name: "db", image: "busybox", command: ["sleep", "3600"] }] },
          },
        },
      });
      succeeded(await context.kubectl$(["apply", "-f", file]), "apply statefulset");
      const scaled = await context.kubectl$(["scale", "statefulset", "db", "-n", context.namespace, "--replicas=2"]);
      assert.match(succeeded(scaled, "scale statefulset"), /^statefulset\.apps\/db scaled$/m);
      const replicas = await context.quiet([
        "get",
        "statefulset",
        "db",
        "-n",
        context.namespace,
        "-o",
        "jsonpath={.spec.replicas}",
      ]);
      assert.equal(succeeded(replicas, "get statefulset"), "2");
      const history = await context.kubectl$(["rollout", "history", "statefulset/db", "-n", context.namespace]);
      assert.match(succeeded(history, "rollout history"), /^REVISION\s+CHANGE-CAUSE$/m);
      assert.match(history.stdout, /^1\s+/m);
    },
  },
  {
    name: "delete namespace (its contents go with it)",
    async run(context) {
      const doomed = `${context.namespace}-gone`;
      succeeded(await context.kubectl$(["create", "namespace", doomed]), `create namespace ${doomed}`);
      succeeded(
        await context.kubectl$(["create", "configmap", "inside", "-n", doomed, "--from-literal=a=b"]),
        "create configmap inside",
      );
      const deleted = await context.kubectl$(["delete", "namespace", doomed, "--timeout=60s"]);
      assert.match(
        succeeded(deleted, `delete namespace ${doomed}`),
        new RegExp(`^namespace "${doomed}" deleted$`, "m"),
      );
      const gone = await context.quiet(["get", "namespace", doomed]);
      assert.match(gone.stderr, new RegExp(`namespaces "${doomed}" not found`));
      const contents = await context.quiet([
        "get",
        "configmaps",
        "-A",
        "--field-selector",
        `metadata.namespace=${doomed}`,
        "-o",
        "name",
      ]);
      assert.equal(succeeded(contents, "get configmaps -A").trim(), "", "the namespace's configmap outlived it");
    },
  },
  {
    name: "create role and rolebinding, auth can-i --as",
    async run(context) {
      const ns = ["-n", context.namespace];
      const role = await context.kubectl$([
        "create",
        "role",
        "cm-reader",
        "--verb=get,list",
        "--resource=configmaps",
        ...ns,
      ]);
      assert.match(succeeded(role, "create role"), /^role\.rbac\.authorization\.k8s\.io\/cm-reader created$/m);
      const binding = ["create", "rolebinding", "cm-reader", "--role=cm-reader", "--user=reader", ...ns];
      succeeded(await context.kubectl$(binding), "create rolebinding");
      const yes = await context.kubectl$(["auth", "can-i", "list", "configmaps", ...ns, "--as", "reader"]);
      assert.equal(succeeded(yes, "auth can-i list"), "yes\n");
      const no = await context.quiet(["auth", "can-i", "delete", "configmaps", ...ns, "--as", "reader"]);
      assert.equal(no.stdout, "no\n");
    },
  },
];

/** Where the steps' manifests are written (removed with the cluster's data directory). */
let manifestsDir = "";

/** Writes a manifest for one step; kubectl reads it with -f. */
function manifestFile(context: StepContext, name: string, object: Record<string, unknown>): string {
  const path = join(manifestsDir, `${context.namespace}-${name}`);
  writeFileSync(path, JSON.stringify(object));
  return path;
}

/** The newest kubectl only: a watch, which must see a change made while it runs. */
const newestOnly: readonly Step[] = [
  {
    name: "get -w",
    async run(context) {
      const watch = spawn(context.kubectl.path, ["get", "configmaps", "-n", context.namespace, "-w"], {
        env: { ...process.env, KUBECONFIG: context.kubeconfig },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      watch.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      try {
        await eventually("the watch lists the existing configmap", watchSeenTimeoutMs, async () =>
          /^greeting\s+1\s/m.test(output) ? true : undefined,
        );
        succeeded(
          await context.quiet(["create", "configmap", "late", "-n", context.namespace]),
          "create configmap late",
        );
        await eventually("the watch shows the new configmap", watchSeenTimeoutMs, async () =>
          /^late\s+0\s/m.test(output) ? true : undefined,
        );
      } finally {
        watch.kill("SIGINT");
      }
    },
  },
];

interface LoggedRequest {
  verb: string;
  url: string;
  status: number;
  contentType: string;
}

/**
 * The requests in a `-v=8` log, each with its answer's status. kubectl 1.30+ logs structured
 * `"Request" verb=… url=…` / `"Response" status="201 Created"`; older ones `POST https://…` and
 * `Response Status: 201 Created`.
 */
function loggedRequests(log: string): LoggedRequest[] {
  const requests: LoggedRequest[] = [];
  let pending: LoggedRequest | undefined;
  for (const line of log.split("\n")) {
    const structured = /"Request" verb="(\w+)" url="([^"]+)"/.exec(line);
    const legacy = /round_trippers\.go:\d+\] (GET|POST|PUT|PATCH|DELETE) (https?:\S+)/.exec(line);
    const request = structured ?? legacy;
    if (request !== null) {
      pending = { verb: request[1] ?? "", url: request[2] ?? "", status: 0, contentType: "" };
      requests.push(pending);
      continue;
    }
    const contentType = /^\s+Content-Type: (\S+)/.exec(line);
    if (contentType !== null && pending !== undefined && pending.status === 0)
      pending.contentType = contentType[1] ?? "";
    const status = /"Response" status="(\d{3})|Response Status: (\d{3})/.exec(line);
    if (status !== null && pending !== undefined) pending.status = Number(status[1] ?? status[2]);
  }
  return requests;
}

/**
 * The GETs kubectl makes expecting a 404: `drain` polls for its evicted pod, `delete namespace`
 * for the namespace to go, `apply` reads an object before it creates it.
 */
const expectedNotFound: readonly RegExp[] = [/\/pods\//, /\/namespaces\/[^/]+-gone$/, /\/statefulsets\/db$/];

function isExpectedNotFound(request: LoggedRequest): boolean {
  return request.status === 404 && request.verb === "GET" && expectedNotFound.some((url) => url.test(request.url));
}

const underCi = process.env.CI === "true";
const kubectls = versionedKubectls();

function skipReasonOf(): string | undefined {
  if (!underCi && process.env.KVOL_E2E !== "1")
    return "starts kvol up and runs every kubectl version; set KVOL_E2E=1 to run it";
  if (kubectls.length === 0 && !underCi) return "no versioned kubectl (kubectl.1.NN) beside the kubectl on the PATH";
  return undefined;
}
const skipReason = skipReasonOf();
if (skipReason !== undefined) console.log(`# kubectl versions e2e skipped: ${skipReason}`);

describe("every kubectl version against kvol up", { skip: skipReason ?? false }, () => {
  let dataDir: string;
  let cluster: KvolUp;
  const newest = kubectls.at(-1)?.minor;

  before(async () => {
    assert.ok(kubectls.length > 0, "CI=true requires the versioned kubectl binaries (kubectl.1.27 … kubectl.1.33)");
    dataDir = mkdtempSync(join(tmpdir(), "kvol-kubectl-versions-e2e-"));
    manifestsDir = join(dataDir, "manifests");
    mkdirSync(manifestsDir);
    cluster = await startKvolUp(dataDir);
  });

  after(async () => {
    if (cluster !== undefined) await stopKvolUp(cluster);
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
  });

  for (const kubectl of kubectls) {
    const isNewest = kubectl.minor === newest;
    it(`kubectl 1.${kubectl.minor}${isNewest ? " (newest: -v=8, every request succeeds, get -w)" : ""}`, async () => {
      const namespace = `kubectl-1-${kubectl.minor}`;
      const logs: string[] = [];
      const quiet = (args: readonly string[]) => run(kubectl.path, cluster.kubeconfig, args);
      const context: StepContext = {
        kubectl,
        kubeconfig: cluster.kubeconfig,
        namespace,
        quiet,
        async kubectl$(args) {
          if (!isNewest) return quiet(args);
          const result = await quiet([...args, "-v=8"]);
          logs.push(result.stderr);
          return result;
        },
      };
      succeeded(await quiet(["create", "namespace", namespace]), `create namespace ${namespace}`);
      for (const step of isNewest ? [...matrix, ...newestOnly] : matrix) {
        await step.run(context).catch((error: unknown) => {
          throw new Error(
            `kubectl 1.${kubectl.minor}: ${step.name}: ${error instanceof Error ? error.message : error}`,
          );
        });
      }
      if (!isNewest) return;
      const requests = logs.flatMap(loggedRequests);
      assert.ok(requests.length > 10, `too few requests logged:\n${logs.join("\n").slice(0, 2000)}`);
      const refused = requests.filter((request) => request.status >= 400 && !isExpectedNotFound(request));
      assert.deepEqual(refused, [], "every request of the newest kubectl succeeds");
      assert.ok(
        requests.some(
          (request) => request.verb === "POST" && request.contentType === "application/vnd.kubernetes.protobuf",
        ),
        `kubectl 1.${kubectl.minor} sent no protobuf body; the protobuf path went untested`,
      );
    });
  }
});
