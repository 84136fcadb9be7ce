/**
 * The web UI in a real browser (Chromium driven by playwright-core; see testing/browser.ts):
 *
 * - `kvol sim run scenarios/004-rbd-node-shutdown-rwx.yaml --html FILE` opened from disk shows the
 *   replacement pod stuck on Multi-Attach, the chain down to the dead node, and the out-of-service
 *   taint to apply, without fetching anything;
 * - on a live `kvol up`, a pod applied while the page is open moves from ContainerCreating to
 *   Running on screen; an attach of one second (sim-disk) shows in the timeline as an operation
 *   from start to end (the live stream's debug states); an administrator is offered the faults;
 *   a page without a token asks for one;
 * - on `kvol server` with two `kvol node` processes, a pod waits in ContainerCreating for its
 *   configMap and goes Running once it exists; meanwhile a user bound to the `view` ClusterRole
 *   sees the graph and the why chain, no fault panel, and the kinds it may not read named.
 *
 * The clusters are started by testing/live-clusters.ts, once per group of tests.
 *
 * Screenshots are saved in test-artifacts/webui/. Without Chromium the suite is skipped with the
 * reason, except under CI=true, where it must run.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { suiteSkip } from "../../testing/requirements.ts";
import { runCommand } from "../testing/run-command.ts";
import { type Browser, browserSkipReason, openBrowser } from "./testing/browser.ts";
import { type LiveCluster, startLiveKvolUp, startServerWithNodes } from "./testing/live-clusters.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const kvolBin = join(repoRoot, "bin", "kvol.js");
/** Generous: eight engineers' tests share two cores. */
const simTimeoutMs = 180_000;
const screenTimeoutMs = 60_000;
const viewerToken = "viewer-token-0123456789abcdef";

/** A claim of the in-tree sim-disk class and its pod: one attach by the attach/detach controller. */
const quickAttachManifest = `
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: quick, namespace: default }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: sim-disk
  resources: { requests: { storage: 1Gi } }
---
apiVersion: v1
kind: Pod
metadata: { name: quick, namespace: default }
spec:
  containers: [{ name: main, image: busybox, volumeMounts: [{ name: data, mountPath: /data }] }]
  volumes: [{ name: data, persistentVolumeClaim: { claimName: quick } }]
`;

/** A pod on a hostPath volume through a claim, and a configMap volume whose configMap is not there yet. */
const waitingPodManifest = `
apiVersion: v1
kind: PersistentVolume
metadata: { name: web-data }
spec:
  capacity: { storage: 1Gi }
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  hostPath: { path: /srv/web-data, type: DirectoryOrCreate }
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: web-data, namespace: default }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  resources: { requests: { storage: 1Gi } }
---
apiVersion: v1
kind: Pod
metadata: { name: web, namespace: default }
spec:
  containers:
    - name: main
      image: busybox
      volumeMounts: [{ name: data, mountPath: /data }, { name: settings, mountPath: /etc/web }]
  volumes:
    - { name: data, persistentVolumeClaim: { claimName: web-data } }
    - { name: settings, configMap: { name: web-settings } }
`;

const settingsManifest = `
apiVersion: v1
kind: ConfigMap
metadata: { name: web-settings, namespace: default }
data: { mode: live }
`;

const viewBindingManifest = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: viewer-view }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: viewer }]
`;

describe("web UI in Chromium", { skip: suiteSkip("web UI in Chromium", browserSkipReason()) }, () => {
  let browser: Browser;
  let workDir: string;
  before(async () => {
    workDir = mkdtempSync(join(tmpdir(), "kvol-webui-"));
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("seed 004's page shows the Multi-Attach chain down to the dead node, and the out-of-service taint to apply", async () => {
    const out = join(workDir, "004.html");
    const run = await runCommand(
      process.execPath,
      [kvolBin, "sim", "run", join(repoRoot, "scenarios", "004-rbd-node-shutdown-rwx.yaml"), "--html", out],
      process.env,
      simTimeoutMs,
    );
    assert.equal(run.status, 0, run.stderr);
    const fetched: string[] = [];
    browser.page.on("request", (request) => {
      if (!request.url().startsWith("file:")) fetched.push(request.url());
    });
    await browser.page.goto(pathToFileURL(out).href);
    const why = browser.page.locator(".why-panel");
    await why.getByText("Multi-Attach", { exact: false }).first().waitFor({ timeout: screenTimeoutMs });
    const text = await why.innerText();
    assert.match(text, /pod sock-shop\/user-db-78fcc96848-\w+\s+Pending, ContainerCreating on node node-b/);
    assert.match(text, /not attached to node node-b: Multi-Attach, the volume is attached to node node-a/);
    assert.match(text, /node node-a\s+NotReady/);
    assert.match(text, /What to do/);
    assert.match(text, /kubectl taint nodes node-a node\.kubernetes\.io\/out-of-service=nodeshutdown:NoExecute/);
    const graph = (await browser.page.locator(".graph").textContent()) ?? "";
    assert.match(graph, /ContainerCreating/);
    assert.match(graph, /Terminating/);
    assert.match(graph, /NotReady/);
    await browser.screenshot("seed-004-multi-attach");
    assert.deepEqual(fetched, [], "the page is self-contained");
  });

  describe("on a live kvol up", () => {
    let cluster: LiveCluster;
    before(async () => {
      cluster = await startLiveKvolUp(join(workDir, "cluster"));
    });
    after(async () => {
      await cluster?.stop();
    });

    it("a pod applied while the page is open goes from ContainerCreating to Running on screen", async () => {
      const page = browser.page;
      await page.goto(cluster.adminPageUrl);
      await page.locator('[data-key="node/node-1"]').waitFor({ timeout: screenTimeoutMs });
      await cluster.apply(readFileSync(join(repoRoot, "examples", "004-sock-shop-user-db.yaml"), "utf8"));
      const pod = page.locator('g[data-key^="pod/sock-shop/user-db-"]');
      await pod.filter({ hasText: "ContainerCreating" }).waitFor({ timeout: screenTimeoutMs });
      await browser.screenshot("live-pod-container-creating");
      await pod.filter({ hasText: "Running" }).waitFor({ timeout: screenTimeoutMs });
      await pod.click();
      await page
        .locator(".why-panel")
        .getByText("Nothing blocks this pod's volumes.")
        .waitFor({ timeout: screenTimeoutMs });
      const timeline = await page.locator(".entries").innerText();
      assert.match(timeline, /ContainerCreating → Running/);
      assert.match(timeline, /AttachVolume\.Attach succeeded/);
      await browser.screenshot("live-pod-running");
    });

    it("an attach that takes a second (a sim-disk) shows in the timeline as an operation from start to end", async () => {
      const page = browser.page;
      await page.goto(cluster.adminPageUrl);
      await page.locator('[data-key="node/node-1"]').waitFor({ timeout: screenTimeoutMs });
      // The in-tree sim-disk plugin attaches in 1 s: shorter than the page's old 2 s poll.
      await cluster.apply(quickAttachManifest);
      const pod = page.locator('g[data-key="pod/default/quick"]');
      await pod.filter({ hasText: "Running" }).waitFor({ timeout: screenTimeoutMs });
      // Its story: the pod, its claim, its volume and its node, with the attach of the volume.
      await pod.click();
      const entries = page.locator(".entries");
      await entries
        .getByText(/volume_attach of volume pvc-[0-9a-f-]+ (on node-\d )?ended/)
        .first()
        .waitFor({ timeout: screenTimeoutMs });
      const timeline = await entries.innerText();
      assert.match(timeline, /volume_attach of volume pvc-[0-9a-f-]+ (on node-\d )?started/);
      await browser.screenshot("live-short-attach");
    });

    it("an administrator injects a fault from the page: node-3 loses power", async () => {
      const page = browser.page;
      const faults = page.locator(".faults");
      await faults.locator("select[aria-label=fault]").selectOption("node-power-off", { timeout: screenTimeoutMs });
      await faults.locator("select[aria-label=target]").selectOption({ label: "node=node-3" });
      await faults.getByRole("button", { name: "Inject" }).click();
      await faults.getByText("injected node-power-off node=node-3").waitFor({ timeout: screenTimeoutMs });
      // The kubelet of node-3 is gone: its state can no longer be read.
      await page
        .getByText('the kubelet of node "node-3" is not running', { exact: false })
        .first()
        .waitFor({ timeout: screenTimeoutMs });
    });

    it("a page opened without a token asks for one", async () => {
      const page = browser.page;
      await page.goto(cluster.adminPageUrl.replace(/#.*$/, ""));
      await page.evaluate("sessionStorage.clear()");
      await page.reload();
      await page.getByText("Sign in to the cluster").waitFor({ timeout: screenTimeoutMs });
    });
  });

  describe("on kvol server with two kvol node processes", () => {
    let cluster: LiveCluster;
    before(async () => {
      cluster = await startServerWithNodes(join(workDir, "server"), ["node-1", "node-2"]);
    });
    after(async () => {
      await cluster?.stop();
    });

    it("shows a pod ContainerCreating until its configMap exists, then Running; a view user sees the graph and the why chain, no faults, and which kinds it may not read", async () => {
      const page = browser.page;
      await page.goto(cluster.adminPageUrl);
      await page.locator('[data-key="node/node-2"]').waitFor({ timeout: screenTimeoutMs });
      await cluster.apply(waitingPodManifest);
      const pod = page.locator('g[data-key="pod/default/web"]');
      await pod.filter({ hasText: "ContainerCreating" }).waitFor({ timeout: screenTimeoutMs });
      await browser.screenshot("server-pod-container-creating");

      // A read-only user: the view ClusterRole, bound to a user of the token file.
      await cluster.apply(viewBindingManifest);
      const viewer = await browser.newPage();
      try {
        await viewer.goto(cluster.addUser("viewer", viewerToken));
        const viewerPod = viewer.locator('g[data-key="pod/default/web"]');
        await viewerPod.filter({ hasText: "ContainerCreating" }).waitFor({ timeout: screenTimeoutMs });
        await viewerPod.click();
        const why = viewer.locator(".why-panel");
        await why.getByText("configmap default/web-settings not found", { exact: false }).waitFor({
          timeout: screenTimeoutMs,
        });
        assert.match(await why.innerText(), /Create configmap web-settings in namespace default/);
        // view grants no cluster-scoped kinds: the page says so and shows the rest.
        const forbidden = await viewer.getByTestId("forbidden").innerText();
        assert.match(forbidden, /Not shown: this user may not read persistentvolumes, volumeattachments, nodes\./);
        assert.match(forbidden, /User "viewer" cannot list resource "nodes" in API group "" at the cluster scope/);
        await viewer
          .getByText(/Not read: .*User "viewer" cannot get resource "nodes\/proxy"/)
          .waitFor({ timeout: screenTimeoutMs });
        assert.equal(await viewer.locator(".faults").count(), 0, "no fault panel for a read-only user");
        assert.equal(await viewer.getByText("Sign in to the cluster").count(), 0);
        await browser.screenshot("server-view-user", viewer);
      } finally {
        await viewer.close();
      }

      await cluster.apply(settingsManifest);
      await pod.filter({ hasText: "Running" }).waitFor({ timeout: screenTimeoutMs });
      // The kubelets of the kvol node processes are read through the server: the failed mounts' backoff.
      assert.match(
        await page.locator(".entries").innerText(),
        /volume_mount of volume \S+-settings failed: .*configmap "web-settings" not found; no retries permitted until/,
      );
      await browser.screenshot("server-pod-running");
    });
  });
});
