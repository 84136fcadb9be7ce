/**
 * Chromium for the web UI's browser tests, driven by playwright-core: Debian's `chromium` package
 * (never a browser downloaded by Playwright), headless, in a fresh profile that is removed at the
 * end. Screenshots go to `test-artifacts/webui/` (gitignored), for a person to look at.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";

export const chromiumPath = process.env.KVOL_CHROMIUM ?? "/usr/bin/chromium";
export const screenshotDir = fileURLToPath(new URL("../../../../test-artifacts/webui/", import.meta.url));

/** Why the browser tests cannot run here, or undefined when they can (under CI=true they must). */
export function browserSkipReason(): string | undefined {
  if (existsSync(chromiumPath)) return undefined;
  if (process.env.CI === "true") return undefined;
  return `no Chromium at ${chromiumPath} (apt-get install -y chromium, or set KVOL_CHROMIUM)`;
}

const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  page: Page;
  /** Another tab of the same browser (its own sessionStorage, so its own token). */
  newPage(): Promise<Page>;
  /** Saves a full-page screenshot as test-artifacts/webui/<name>.png; returns its path. */
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  const profile = mkdtempSync(join(tmpdir(), "kvol-chromium-"));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: chromiumArgs,
      viewport: { width: 1360, height: 900 },
      // The clusters' pages are opened over HTTPS with their own certificate authority, which
      // this throwaway profile does not hold; the tests are about the page, not the certificate.
      ignoreHTTPSErrors: true,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    page,
    newPage: () => context.newPage(),
    async screenshot(name, shown = page) {
      mkdirSync(screenshotDir, { recursive: true });
      const path = join(screenshotDir, `${name}.png`);
      await shown.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
