/**
 * `npm ci`'s `prepare` step (scripts/prepare-ui.ts): builds the web UI into dist/ui/ when it is
 * missing or older than ui/'s sources (ensureUiBuilt). A production install (`npm ci --omit=dev`)
 * has no Vite: the install then succeeds without the web UI, saying so — every kvol command works,
 * `/ui/` answers 503 with what to do, and `kvol sim run --html` fails with the same advice.
 */
import { ensureUiBuilt } from "./ui-assets.ts";

export const uiNotBuiltNote =
  "kvol: Vite is not installed (a production install, npm ci --omit=dev), so the web UI is not built; " +
  "kvol runs without it (/ui/ answers 503 and kvol sim run --html fails). " +
  "To have it, install with the dev dependencies (npm ci) or run npm run build:ui where Vite is installed.\n";

function isViteMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : "";
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && /['"]vite['"]/.test(message);
}

/** Builds the UI when needed; undefined when it is built, else the note to print (Vite missing). */
export async function prepareUi(ensure: () => Promise<void> = ensureUiBuilt): Promise<string | undefined> {
  try {
    await ensure();
    return undefined;
  } catch (error) {
    if (isViteMissing(error)) return uiNotBuiltNote;
    throw error;
  }
}
