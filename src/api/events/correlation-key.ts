/**
 * The event correlator's cache keys, as 53-bit hashes of the fields client-go joins into a key string.
 * A kubelet remembers a few keys for every pod it ran, each a hundred or more characters (the
 * involved object's kind, namespace, name, uid and apiVersion, then type, reason and message):
 * thousands of nodes' caches held several kilobytes per pod in key strings. A number key keeps the
 * same LRU caches, entry for entry. Two different keys share a hash with probability 2^-53 per
 * pair: with 4,096 entries per cache, about one run in a billion would merge two events' counts.
 */

/** Mixes a second 32-bit lane so the result has 53 significant bits (the cyrb53 construction). */
const laneOneSeed = 0xdeadbeef;
const laneTwoSeed = 0x41c6ce57;
const mixMultiplierOne = 2654435761;
const mixMultiplierTwo = 1597334677;
const finalMultiplierOne = 2246822507;
const finalMultiplierTwo = 3266489909;
/** Parts are separated by a character no field contains, so ("ab","c") and ("a","bc") differ. */
const separatorCode = 0;
/** The high lane contributes 21 bits above the low lane's 32: 53 bits, a safe integer. */
const highLaneMask = 0x1f_ffff;
const lowLaneRange = 0x1_0000_0000;

/**
 * The hash state after some leading parts, to continue from: every key of an event starts with the
 * same involved-object parts, hashed once instead of once per key.
 */
export interface KeyPrefix {
  readonly lane1: number;
  readonly lane2: number;
}

const emptyPrefix: KeyPrefix = { lane1: laneOneSeed, lane2: laneTwoSeed };

/**
 * Hashes one key part by part, without a list of the parts: `builder.start(prefix).add(a).add(b).key()`
 * is `correlationKey([a, b], prefix)`. A correlator keeps one and reuses it for every key it makes,
 * where each key was a list of its parts and a prefix object, garbage at once.
 */
export class KeyBuilder {
  private lane1 = laneOneSeed;
  private lane2 = laneTwoSeed;

  /** Continues from `prefix`'s state (the empty prefix: a key from scratch). */
  start(prefix: KeyPrefix = emptyPrefix): this {
    this.lane1 = prefix.lane1;
    this.lane2 = prefix.lane2;
    return this;
  }

  add(part: string): this {
    let h1 = this.lane1;
    let h2 = this.lane2;
    for (let i = 0; i < part.length; i++) {
      const code = part.charCodeAt(i);
      h1 = Math.imul(h1 ^ code, mixMultiplierOne);
      h2 = Math.imul(h2 ^ code, mixMultiplierTwo);
    }
    this.lane1 = Math.imul(h1 ^ separatorCode, mixMultiplierOne);
    this.lane2 = Math.imul(h2 ^ separatorCode, mixMultiplierTwo);
    return this;
  }

  /** The state so far, to continue from later. */
  prefix(): KeyPrefix {
    return { lane1: this.lane1, lane2: this.lane2 };
  }

  /** The key of the parts added since `start`. */
  key(): number {
    let h1 = this.lane1;
    let h2 = this.lane2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), finalMultiplierOne);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), finalMultiplierTwo);
    h2 = Math.imul(h2 ^ (h2 >>> 16), finalMultiplierOne);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), finalMultiplierTwo);
    return lowLaneRange * (h2 & highLaneMask) + (h1 >>> 0);
  }
}

/** The state after hashing `parts`: `correlationKey(more, keyPrefix(parts))` is `correlationKey([...parts, ...more])`. */
export function keyPrefix(parts: readonly string[], prefix: KeyPrefix = emptyPrefix): KeyPrefix {
  const builder = new KeyBuilder().start(prefix);
  for (const part of parts) builder.add(part);
  return builder.prefix();
}

/** The key of `prefix`'s parts followed by `parts`. */
export function correlationKey(parts: readonly string[], prefix: KeyPrefix = emptyPrefix): number {
  const builder = new KeyBuilder().start(prefix);
  for (const part of parts) builder.add(part);
  return builder.key();
}
