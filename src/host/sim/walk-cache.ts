/**
 * What the walk at once answered for each path, kept while the answer cannot have changed: the
 * kernel's dentry cache, keyed by the whole path. Idle kubelets ask the same few paths every second
 * or two on every node (the plugin registry, the pods directory, each pod's directory), and a node's
 * root filesystem seldom changes in between; a lookup by path costs a hash of the path where a walk
 * compares every component.
 *
 * The walk at once reads only the root mount's filesystem (its directory entries; an inode's type
 * and a link's target never change) and which of its directories a mount covers. So an answer holds
 * while the filesystem's `structureGeneration` and the mount table's `generation` are those it was
 * found under; when either moves on, every answer is forgotten.
 */
import type { Errno } from "../host.ts";

/** Paths remembered per kind of walk; a node's idle loops ask a few dozen. Past this, all are forgotten. */
const maxCachedWalks = 128;

export class WalkCache<Answer> {
  private structureGeneration = -1;
  private mountGeneration = -1;
  /** Answers of walks that follow a link in the last component (stat). */
  private readonly following = new Map<string, Answer | Errno>();
  /** Answers of walks that do not (lstat). */
  private readonly notFollowing = new Map<string, Answer | Errno>();

  /** The answer found for `path` under these generations, if any. */
  get(
    path: string,
    followLast: boolean,
    structureGeneration: number,
    mountGeneration: number,
  ): Answer | Errno | undefined {
    if (structureGeneration !== this.structureGeneration || mountGeneration !== this.mountGeneration) {
      this.structureGeneration = structureGeneration;
      this.mountGeneration = mountGeneration;
      this.following.clear();
      this.notFollowing.clear();
      return undefined;
    }
    return (followLast ? this.following : this.notFollowing).get(path);
  }

  /** Remembers an answer found under the generations of the last `get`. */
  set(path: string, followLast: boolean, answer: Answer | Errno): void {
    const answers = followLast ? this.following : this.notFollowing;
    if (answers.size >= maxCachedWalks) answers.clear();
    answers.set(path, answer);
  }
}
