/**
 * The unmounter of a plugin whose TearDown is one cleanup call on the pod's volume directory (the
 * bind-mounting plugins, NFS): the plugin says which cleanup, this class carries the directory.
 */
import type { VolumeUnmounter } from "../plugin.ts";

export class PodDirUnmounter implements VolumeUnmounter {
  constructor(
    private readonly dir: string,
    /** Unmounts whatever is at `dir` and removes it; succeeds when nothing is there. */
    private readonly cleanUp: (dir: string) => Promise<void>,
  ) {}

  getPath(): string {
    return this.dir;
  }

  tearDown(): Promise<void> {
    return this.cleanUp(this.dir);
  }
}
