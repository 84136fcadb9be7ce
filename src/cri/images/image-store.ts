/**
 * The node's local image store: one directory per image under `<dir>/`, holding `rootfs/` and
 * `config.json` (entrypoint, command, environment, working directory, as an OCI image config says
 * them). Nothing is pulled from a registry: `busybox` and the stand-ins for the other images the
 * examples name are built from the machine's static busybox on first use; other images are
 * imported from a directory or a tar of a root filesystem (`kvol image import NAME DIR|TAR`).
 */
import { execFile } from "node:child_process";
import { cp, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { buildBusyboxRootfs, findStaticBusybox, missingStaticBusyboxAdvice } from "./busybox-rootfs.ts";
import { imageDirName, imageRepository, normalizeImageName } from "./image-names.ts";

const run = promisify(execFile);

export interface ImageConfig {
  entrypoint: string[];
  cmd: string[];
  /** `KEY=value` entries. */
  env: string[];
  workingDir: string;
}

export interface Image {
  /** The normalized name (`busybox:latest`). */
  name: string;
  rootfs: string;
  config: ImageConfig;
}

const defaultImageEnv = ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"];

/**
 * What each built-in image runs when the pod names no command: busybox's shell, or for the
 * images the examples use, a busybox program that stays up as their server would.
 */
const builtinImages: ReadonlyMap<string, Omit<ImageConfig, "env">> = new Map([
  ["busybox", { entrypoint: [], cmd: ["sh"], workingDir: "/" }],
  ["alpine", { entrypoint: [], cmd: ["/bin/sh"], workingDir: "/" }],
  ["nginx", { entrypoint: [], cmd: ["httpd", "-f", "-p", "80", "-h", "/usr/share/nginx/html"], workingDir: "/" }],
  ["weaveworksdemos/user-db", { entrypoint: [], cmd: ["sleep", "infinity"], workingDir: "/" }],
]);

/** The repositories that resolve to a busybox root filesystem without an import. */
export function builtinImageRepositories(): string[] {
  return [...builtinImages.keys()];
}

export class ImageNotFoundError extends Error {
  constructor(reference: string) {
    super(
      `image "${reference}" is not in the local image store; built-in images: ${builtinImageRepositories().join(", ")}; import others with kvol image import NAME DIR|TAR`,
    );
    this.name = "ImageNotFoundError";
  }
}

export class ImageStore {
  /** Built-in images being built now, so two containers asking at once share one build. */
  private readonly building = new Map<string, Promise<Image>>();

  constructor(readonly dir: string) {}

  /** The image for `reference`, building a built-in one on first use. */
  async resolve(reference: string): Promise<Image> {
    const name = normalizeImageName(reference);
    const inFlight = this.building.get(name);
    if (inFlight !== undefined) return inFlight;
    const resolution = this.readOrBuild(reference, name);
    this.building.set(name, resolution);
    try {
      return await resolution;
    } finally {
      this.building.delete(name);
    }
  }

  private async readOrBuild(reference: string, name: string): Promise<Image> {
    const existing = await this.read(name);
    if (existing !== undefined) return existing;
    const builtin = builtinImages.get(imageRepository(name));
    if (builtin === undefined) throw new ImageNotFoundError(reference);
    return this.install(name, { ...builtin, env: defaultImageEnv }, async (rootfs) => {
      const busybox = await findStaticBusybox();
      if (busybox === undefined) throw new Error(`cannot build image ${name}: ${missingStaticBusyboxAdvice}`);
      await buildBusyboxRootfs(busybox, rootfs);
    });
  }

  /** Adds (or replaces) `reference` with the root filesystem in `source`, a directory or a tar file. */
  async import(reference: string, source: string, config: Partial<ImageConfig> = {}): Promise<Image> {
    const name = normalizeImageName(reference);
    const kind = await stat(source).then(
      (stats) => (stats.isDirectory() ? "dir" : "file"),
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") throw new Error(`cannot import ${name}: ${source} does not exist`);
        throw error;
      },
    );
    const fullConfig: ImageConfig = {
      entrypoint: config.entrypoint ?? [],
      cmd: config.cmd ?? ["sh"],
      env: config.env ?? defaultImageEnv,
      workingDir: config.workingDir ?? "/",
    };
    await rm(this.imageDir(name), { recursive: true, force: true });
    return this.install(name, fullConfig, async (rootfs) => {
      if (kind === "dir")
        await cp(source, rootfs, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      else await run("tar", ["-xf", source, "-C", rootfs, "--numeric-owner"]);
    });
  }

  private imageDir(name: string): string {
    return join(this.dir, imageDirName(name));
  }

  private async read(name: string): Promise<Image | undefined> {
    const dir = this.imageDir(name);
    let text: string;
    try {
      text = await readFile(join(dir, "config.json"), "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
    return { name, rootfs: join(dir, "rootfs"), config: JSON.parse(text) as ImageConfig };
  }

  /** Builds into a scratch directory and renames it into place, so a half-built image is never used. */
  private async install(name: string, config: ImageConfig, fill: (rootfs: string) => Promise<void>): Promise<Image> {
    await mkdir(this.dir, { recursive: true });
    const scratch = join(this.dir, `.partial-${imageDirName(name)}-${process.pid}`);
    await rm(scratch, { recursive: true, force: true });
    await mkdir(join(scratch, "rootfs"), { recursive: true });
    try {
      await fill(join(scratch, "rootfs"));
      await writeFile(join(scratch, "config.json"), `${JSON.stringify(config, null, 2)}\n`);
      await rename(scratch, this.imageDir(name));
    } catch (error) {
      await rm(scratch, { recursive: true, force: true });
      const raced = await this.read(name);
      if (raced !== undefined) return raced;
      throw error;
    }
    return { name, rootfs: join(this.imageDir(name), "rootfs"), config };
  }
}
