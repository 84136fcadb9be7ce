/**
 * The web UI's built files (`dist/ui/`: index.html, app.js, app.css). `npm ci` builds them (the
 * package's `prepare` script runs `npm run build:ui`); a checkout where they are missing, or older
 * than the UI's sources, builds them on first use, through Vite's own API, into a private folder
 * that then replaces the old one, so two processes building at once do not mix their files.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";

const repositoryRoot = join(import.meta.dirname, "../../..");
const uiSourceDir = join(repositoryRoot, "ui");
export const uiDistDir = join(repositoryRoot, "dist", "ui");

/** The files a built UI has; the HTML report inlines the script and the style. */
export const uiFiles = { page: "index.html", script: "app.js", style: "app.css" } as const;

function newestMtimeMs(dir: string, depthLeft: number): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (depthLeft > 0 && entry.name !== "node_modules") newest = Math.max(newest, newestMtimeMs(path, depthLeft - 1));
    } else newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Sub-folders of ui/ searched for a newer source; a bound on the walk. */
const sourceDepth = 4;

function isCurrent(): boolean {
  const built = join(uiDistDir, uiFiles.script);
  if (!existsSync(built) || !existsSync(join(uiDistDir, uiFiles.style))) return false;
  // Without the sources (an installed package) the built files are all there is.
  if (!existsSync(uiSourceDir)) return true;
  return statSync(built).mtimeMs >= newestMtimeMs(uiSourceDir, sourceDepth);
}

async function build(): Promise<void> {
  const { build: viteBuild } = await import("vite");
  const distParent = join(repositoryRoot, "dist");
  mkdirSync(distParent, { recursive: true });
  const outDir = mkdtempSync(join(distParent, ".ui-build-"));
  try {
    await viteBuild({
      configFile: join(uiSourceDir, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir, emptyOutDir: true },
    });
    rmSync(uiDistDir, { recursive: true, force: true });
    renameSync(outDir, uiDistDir);
    chmodSync(uiDistDir, 0o755);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

let building: Promise<void> | undefined;

/** Builds the UI unless its built files are there and current; once per process at a time. */
export function ensureUiBuilt(): Promise<void> {
  if (isCurrent()) return Promise.resolve();
  building ??= build().finally(() => {
    building = undefined;
  });
  return building;
}

export function readUiFile(name: string): Buffer {
  return readFileSync(join(uiDistDir, name));
}
