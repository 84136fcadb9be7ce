/**
 * One self-contained HTML file for a recorded run: the web UI's script and style inlined, and the
 * recording as JSON in a `<script type="application/json">` the page reads. Nothing is fetched when
 * it opens (it works from a file:// address or attached to an incident ticket).
 */
import { writeFileSync } from "node:fs";
import { ensureUiBuilt, readUiFile, uiFiles } from "./ui-assets.ts";
import { type Recording, recordingElementId } from "./ui-data.ts";

/** Text that cannot end the element it is inlined into early (`</script>`, `</style>`, `<!--`). */
function inlineSafe(text: string): string {
  return text.replace(/<\/(script|style)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export async function htmlReport(recording: Recording): Promise<string> {
  await ensureUiBuilt();
  const script = readUiFile(uiFiles.script).toString("utf8");
  const style = readUiFile(uiFiles.style).toString("utf8");
  // JSON inside a script element: `<` escaped so no string in it can close the element.
  const data = JSON.stringify(recording).replace(/</g, "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kvol — ${escapeHtml(recording.scenario)}</title>
<style>${inlineSafe(style)}</style>
</head>
<body>
<div id="app"></div>
<script type="application/json" id="${recordingElementId}">${data}</script>
<script type="module">${inlineSafe(script)}</script>
</body>
</html>
`;
}

export async function writeHtmlReport(path: string, recording: Recording): Promise<void> {
  writeFileSync(path, await htmlReport(recording));
}
