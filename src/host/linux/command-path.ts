/** Finding binaries the way exec.LookPath does: the first executable regular file of that name on PATH. */
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";

export async function findCommand(name: string, searchPath: string): Promise<string | undefined> {
  if (name.includes("/")) return (await isExecutableFile(name)) ? name : undefined;
  for (const dir of searchPath.split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    const stats = await stat(path);
    if (!stats.isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch (error) {
    // Not there, not reachable or not executable: all mean "not this one" for a PATH search.
    if (!(error instanceof Error)) throw error;
    return false;
  }
}
