/**
 * The web UI in a real browser (Chromium driven by playwright-core; see testing/browser.ts):
 *
 * - `kvol sim run scenarios/004-rbd-node-shutdown-rwx.yaml --html FILE` opened from disk shows the
 *   replacement pod stuck on Multi-Attach, the chain down to the dead node, and the out-of-service
 *   taint to apply, without fetching anything;
 * - on a live `kvol up`, a pod applied while the page is open moves from ContainerCreating to
 *   Running on screen, and an administrator is offered the faults; a page without a token asks for one.
 *
 * Screenshots are saved in test-artifacts/webui/. Without Chromium the suite is skipped with the
 * reason, except under CI=true, where it must run.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { suiteSkip } from "../../testing/requirements.ts";
import { type KvolUp, startKvolUp, stopKvolUp } from "../kvol-up-process.ts";
import { runCommand } from "../testing/run-command.ts";
import { type Browser, browserSkipReason, openBrowser } from "./testing/browser.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const kvolBin = join(repoRoot, "bin", "kvol.js");
/** Generous: eight engineers' tests share two cores. */
const simTimeoutMs = 180_000;
const screenTimeoutMs = 60_000;

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
    let cluster: KvolUp;
    let uiUrl: string;
    before(async () => {
      cluster = await startKvolUp(join(workDir, "cluster"));
      const url = /^web UI: (\S+)$/m.exec(cluster.output())?.[1];
      assert.ok(url !== undefined, `kvol up printed no web UI address:\n${cluster.output()}`);
      uiUrl = url;
    });
    after(async () => {
      if (cluster !== undefined) await stopKvolUp(cluster);
    });

    it("a pod applied while the page is open goes from ContainerCreating to Running on screen", async () => {
      const page = browser.page;
      await page.goto(uiUrl);
      await page.locator('[data-key="node/node-1"]').waitFor({ timeout: screenTimeoutMs });
      const apply = await runCommand(
        process.execPath,
        [
          kvolBin,
          "apply",
          "--kubeconfig",
          cluster.kubeconfig,
          "-f",
          join(repoRoot, "examples", "004-sock-shop-user-db.yaml"),
        ],
        process.env,
        screenTimeoutMs,
      );
      assert.equal(apply.status, 0, apply.stderr);
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
      await page.goto(uiUrl.replace(/#.*$/, ""));
      await page.evaluate("sessionStorage.clear()");
      await page.reload();
      await page.getByText("Sign in to the cluster").waitFor({ timeout: screenTimeoutMs });
    });
  });
});
