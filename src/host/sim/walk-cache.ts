/**
 * What the walk at once answered for each path, kept while the answer cannot have changed: the
 * kernel's dentry cache, keyed by the whole path.
 *
 * The walk at once reads only the root mount's filesystem (its directory entries; an inode's type
 * and a link's target never change) and which of its directories a mount covers. So an answer holds
 * while the filesystem's `structureGeneration` and the mount table's `generation` are those it was
 * found under; when either moves on, every answer is forgotten.
 *
 * Two memories, for two ways a node asks:
 * - the last few answers, compared by path (no hashing): `mkdir -p` walks the parent it has just
 *   probed, a volume check stats what it has just listed; a third of a busy node's walks repeat one
 *   of the last four, even while pods start and stop around them;
 * - a map by path, once the node is at rest (`lookupsBeforeRemembering` walks in a row found nothing
 *   changed): idle kubelets ask the same dozen paths every second or two (the plugin registry, the
 *   pods directory, each pod's directory). Hashing a path that is a new string each time costs a
 *   good part of a walk, so a busy node, whose answers would be forgotten before they are asked for
 *   again, does not use it.
 */
import type { Errno } from "../host.ts";

/** Answers kept in the order found, the oldest replaced. */
const recentCount = 4;

/** Paths remembered per kind of walk once at rest; past this, all are forgotten. */
const maxCachedWalks = 128;

/** Walks in a row under unchanged generations before answers are kept by path: a busy node changes sooner. */
const lookupsBeforeRemembering = 16;

export class WalkCache<Answer> {
  private structureGeneration = -1;
  private mountGeneration = -1;
  /** Lookups since the generations last moved on, counted up to `lookupsBeforeRemembering` + 1. */
  private unchangedLookups = 0;
  private readonly recentPaths: (string | undefined)[] = new Array<string | undefined>(recentCount).fill(undefined);
  private readonly recentFollowLast: boolean[] = new Array<boolean>(recentCount).fill(false);
  private readonly recentAnswers: (Answer | Errno | undefined)[] = new Array<Answer | Errno | undefined>(
    recentCount,
  ).fill(undefined);
  /** Where the next recent answer goes. */
  private nextRecent = 0;
  /** Answers of walks that follow a link in the last component (stat), at rest. */
  private readonly following = new Map<string, Answer | Errno>();
  /** Answers of walks that do not (lstat), at rest. */
  private readonly notFollowing = new Map<string, Answer | Errno>();

  /** The answer found for `path` under these generations, if any. */
  get(
    path: string,
    followLast: boolean,
    structureGeneration: number,
    mountGeneration: number,
  ): Answer | Errno | undefined {
    if (structureGeneration !== this.structureGeneration || mountGeneration !== this.mountGeneration) {
      this.forget(structureGeneration, mountGeneration);
      return undefined;
    }
    const atRest = this.unchangedLookups > lookupsBeforeRemembering;
    if (!atRest) this.unchangedLookups++;
    for (let i = 0; i < recentCount; i++) {
      if (this.recentPaths[i] === path && this.recentFollowLast[i] === followLast) return this.recentAnswers[i];
    }
    if (!atRest) return undefined;
    return (followLast ? this.following : this.notFollowing).get(path);
  }

  /** Remembers an answer found under the generations of the last `get`. */
  set(path: string, followLast: boolean, answer: Answer | Errno): void {
    const slot = this.nextRecent;
    this.recentPaths[slot] = path;
    this.recentFollowLast[slot] = followLast;
    this.recentAnswers[slot] = answer;
    this.nextRecent = (slot + 1) % recentCount;
    if (this.unchangedLookups <= lookupsBeforeRemembering) return;
    const answers = followLast ? this.following : this.notFollowing;
    if (answers.size >= maxCachedWalks) answers.clear();
    answers.set(path, answer);
  }

  private forget(structureGeneration: number, mountGeneration: number): void {
    this.structureGeneration = structureGeneration;
    this.mountGeneration = mountGeneration;
    this.unchangedLookups = 0;
    this.recentPaths.fill(undefined);
    this.recentAnswers.fill(undefined);
    if (this.following.size > 0) this.following.clear();
    if (this.notFollowing.size > 0) this.notFollowing.clear();
  }
}
