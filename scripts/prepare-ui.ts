/** `npm ci`'s prepare step: the web UI built when Vite is there (src/cli/webui/prepare-ui.ts). */
import { prepareUi } from "../src/cli/webui/prepare-ui.ts";

const note = await prepareUi();
if (note !== undefined) process.stderr.write(note);
