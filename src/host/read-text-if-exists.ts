import { type Host, isHostError } from "./host.ts";

/**
 * A file's text on a node, or undefined when there is no such file (ENOENT): the usual way to read
 * a record that may not have been written yet. Any other error is thrown.
 */
export async function readTextIfExists(host: Pick<Host, "readFile">, path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await host.readFile(path));
  } catch (error) {
    if (isHostError(error, "ENOENT")) return undefined;
    throw error;
  }
}
