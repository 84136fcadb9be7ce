/**
 * `kvol image import NAME DIR|TAR [--cmd "…"] [--data-dir D]` and `kvol image list`: the local image
 * store real nodes run containers from (DATA/images). An import takes a root filesystem as a
 * directory or a tar file (`docker export` makes one); `busybox` and the stand-ins for the images
 * the examples name need no import.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { builtinImageRepositories, ImageStore } from "../cri/images/image-store.ts";
import { errorMessage } from "../runtime/error-message.ts";
import { type CommandIo, exitFailure, exitOk, exitUsage, processIo } from "./command-io.ts";
import { defaultDataDir } from "./embedded/data-dir.ts";

export const imageUsage = `Usage:
  kvol image import NAME DIR|TAR [--cmd "PROGRAM ARG…"] [--data-dir D]
  kvol image list [--data-dir D]

The image store of real nodes (kvol node --host linux, kvol up --host linux), in D/images.
import adds NAME (e.g. myapp:1.0) from a root filesystem: a directory, or a tar of one
(docker export CONTAINER > app.tar). --cmd is what it runs when a pod names no command
(default: sh). Built in, from this machine's static busybox: ${builtinImageRepositories().join(", ")}.

  --data-dir D   the data directory (default $KVOL_DATA_DIR or ~/.kvol)
`;

export async function runImageCommand(argv: readonly string[], io: CommandIo = processIo): Promise<number> {
  let values: { cmd?: string | undefined; "data-dir"?: string | undefined; help?: boolean | undefined };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { cmd: { type: "string" }, "data-dir": { type: "string" }, help: { type: "boolean", short: "h" } },
    }));
  } catch (error) {
    io.stderr(`kvol image: ${errorMessage(error)}\n\n${imageUsage}`);
    return exitUsage;
  }
  if (values.help) {
    io.stdout(imageUsage);
    return exitOk;
  }
  const store = new ImageStore(join(values["data-dir"] ?? defaultDataDir(), "images"));
  const [verb, name, source, ...rest] = positionals;
  try {
    if (verb === "list" && name === undefined) {
      const names = (await readImageDirs(store.dir)).filter((entry) => !entry.startsWith("."));
      io.stdout(`${names.map((entry) => decodeURIComponent(entry)).join("\n")}${names.length > 0 ? "\n" : ""}`);
      return exitOk;
    }
    if (verb !== "import" || name === undefined || source === undefined || rest.length > 0) {
      io.stderr(`kvol image: expected "import NAME DIR|TAR" or "list"\n\n${imageUsage}`);
      return exitUsage;
    }
    const cmd = values.cmd?.split(/\s+/).filter((word) => word !== "");
    const image = await store.import(name, source, cmd === undefined ? {} : { cmd });
    io.stdout(`image ${image.name} imported into ${store.dir}\n`);
    return exitOk;
  } catch (error) {
    io.stderr(`kvol image: ${errorMessage(error)}\n`);
    return exitFailure;
  }
}

/** The image directories, none before the first image was stored. */
async function readImageDirs(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
