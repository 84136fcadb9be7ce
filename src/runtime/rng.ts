/**
 * The seeded random number generator behind every random choice in kvol (uids, jitter, fault
 * injection, exploration), so one seed replays one run exactly.
 *
 * Generator: xoshiro128** (Blackman & Vigna), 32-bit arithmetic, state seeded through the splitmix32
 * finaliser. Named sub-streams (`stream(name)`) are derived from the seed key and the name only, never
 * from the parent's position, so a component that starts drawing more numbers does not shift what any
 * other component sees — adding a fault injector leaves every uid in the run unchanged.
 */

const twoPow32 = 2 ** 32;
/** The golden-ratio increment of splitmix, as a 32-bit word. */
const goldenGamma32 = 0x9e3779b9;
/** A distinct FNV-1a offset basis per state word, so the four words of a name hash differ. */
const nameHashOffsetBasis = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b] as const;
const fnvPrime32 = 0x01000193;

/** A UUID's 16 bytes, printed as 32 hex digits in groups of 8-4-4-4-12. */
const uuidBytes = 16;
/** The byte holding the version (4, random) in its high nibble, and the one holding the variant (10xx). */
const uuidVersionByte = 6;
const uuidVariantByte = 8;
/** Whether a dash precedes each byte's two digits (between the groups of 4, 2, 2, 2 and 6 bytes). */
const uuidDashBeforeByte = Array.from({ length: uuidBytes }, (_, index) => [4, 6, 8, 10].includes(index));
const hexDigitCodes = Array.from("0123456789abcdef", (digit) => digit.charCodeAt(0));
const dashCode = "-".charCodeAt(0);
/** The 36 characters of the UUID being written; uuid() fills every slot before reading them. */
const uuidCharCodes = new Array<number>(36).fill(0);

/** The splitmix32 / murmur3 finaliser: a bijection on 32-bit words with strong avalanche. */
function mix32(word: number): number {
  let z = word | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

function rotateLeft(word: number, bits: number): number {
  return ((word << bits) | (word >>> (32 - bits))) >>> 0;
}

/** The four 32-bit words of xoshiro128** state a generator starts from. */
type RngKey = readonly [number, number, number, number];

function keyFromSeed(seed: number): RngKey {
  const wide = BigInt.asUintN(64, BigInt(seed));
  const low = Number(wide & 0xffffffffn);
  const high = Number(wide >> 32n);
  const word = (lane: number): number => mix32(low + mix32(high + Math.imul(lane + 1, goldenGamma32)));
  return [word(0), word(1), word(2), word(3)];
}

function hashName(name: string, lane: number): number {
  let hash = nameHashOffsetBasis[lane] as number;
  for (const byte of new TextEncoder().encode(name)) hash = Math.imul(hash ^ byte, fnvPrime32);
  return mix32(hash);
}

function childKey(parent: RngKey, name: string): RngKey {
  const lane = (index: 0 | 1 | 2 | 3): number => mix32(parent[index] ^ hashName(name, index));
  return [lane(0), lane(1), lane(2), lane(3)];
}

function validateStartState(state: RngKey): RngKey {
  for (const [index, word] of state.entries()) {
    if (!Number.isInteger(word) || word < 0 || word >= twoPow32) {
      throw new RangeError(`Rng: startState[${index}] must be a 32-bit unsigned integer, got ${word}`);
    }
  }
  return state;
}

export class Rng {
  /** The seed this generator (or the root it was derived from) was created with. */
  readonly seed: number;
  private readonly key: RngKey;
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  /**
   * `seed` is any safe integer; the same seed always yields the same sequence. `startState` overrides the
   * state derived from the seed: `stream()` uses it, and tests use it to check reference vectors.
   */
  constructor(seed: number, startState?: RngKey) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`Rng: seed must be a safe integer, got ${seed}`);
    this.seed = seed;
    this.key = startState === undefined ? keyFromSeed(seed) : validateStartState(startState);
    [this.s0, this.s1, this.s2, this.s3] = this.key;
    // xoshiro's one forbidden state is all zeroes: it would only ever produce zeroes.
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = goldenGamma32;
  }

  /** An independent generator for `name`, the same for the same (seed, name) whatever was drawn before. */
  stream(name: string): Rng {
    return new Rng(this.seed, childKey(this.key, name));
  }

  /** A uniformly distributed 32-bit unsigned integer (one xoshiro128** step). */
  nextUint32(): number {
    const result = Math.imul(rotateLeft(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const shifted = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ shifted) >>> 0;
    this.s3 = rotateLeft(this.s3, 11);
    return result;
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  next(): number {
    return this.nextUint32() / twoPow32;
  }

  /** A uniformly distributed integer in [min, maxInclusive], without modulo bias. */
  int(min: number, maxInclusive: number): number {
    if (!Number.isSafeInteger(min) || !Number.isSafeInteger(maxInclusive) || maxInclusive < min) {
      throw new RangeError(
        `Rng.int: need integers with min <= maxInclusive, got min=${min} maxInclusive=${maxInclusive}`,
      );
    }
    const span = maxInclusive - min + 1;
    if (span > twoPow32) throw new RangeError(`Rng.int: range of ${span} values exceeds 2^32`);
    // Reject draws from the incomplete last block of `span` values so every value is equally likely.
    const limit = twoPow32 - (twoPow32 % span);
    let draw = this.nextUint32();
    while (draw >= limit) draw = this.nextUint32();
    return min + (draw % span);
  }

  /** True with probability `probability` (0 never, 1 always). */
  chance(probability: number): boolean {
    if (!(probability >= 0 && probability <= 1)) {
      throw new RangeError(`Rng.chance: probability must be within [0, 1], got ${probability}`);
    }
    return this.next() < probability;
  }

  /** One element of a non-empty array, each equally likely. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.pick: cannot pick from an empty array");
    return items[this.int(0, items.length - 1)] as T;
  }

  /** A shuffled copy of `items` (Fisher–Yates); the input is left untouched. */
  shuffle<T>(items: readonly T[]): T[] {
    const shuffled = [...items];
    for (let index = shuffled.length - 1; index > 0; index--) {
      const other = this.int(0, index);
      [shuffled[index], shuffled[other]] = [shuffled[other] as T, shuffled[index] as T];
    }
    return shuffled;
  }

  /** `byteCount` random bytes. */
  bytes(byteCount: number): Uint8Array {
    if (!Number.isSafeInteger(byteCount) || byteCount < 0) {
      throw new RangeError(`Rng.bytes: byteCount must be a non-negative integer, got ${byteCount}`);
    }
    const out = new Uint8Array(byteCount);
    for (let index = 0; index < byteCount; index += 4) {
      const word = this.nextUint32();
      for (let offset = 0; offset < 4 && index + offset < byteCount; offset++)
        out[index + offset] = word >>> (8 * offset);
    }
    return out;
  }

  /** `byteCount` random bytes as lowercase hex (2 characters per byte). */
  hex(byteCount: number): string {
    return Buffer.from(this.bytes(byteCount)).toString("hex");
  }

  /**
   * An RFC 4122 version 4 UUID (`xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`) drawn from this stream:
   * the hex of `bytes(16)` with the version and variant bits set. Written as character codes into one
   * array and made into a string at once: that string is flat (every stored object keeps its uid),
   * and nothing else is allocated, which counts with a uid for every object and event.
   */
  uuid(): string {
    let at = 0;
    for (let index = 0; index < uuidBytes; index += 4) {
      const word = this.nextUint32();
      for (let offset = 0; offset < 4; offset++) {
        const byteIndex = index + offset;
        let byte = (word >>> (8 * offset)) & 0xff;
        if (byteIndex === uuidVersionByte) byte = (byte & 0x0f) | 0x40;
        else if (byteIndex === uuidVariantByte) byte = (byte & 0x3f) | 0x80;
        if (uuidDashBeforeByte[byteIndex] === true) uuidCharCodes[at++] = dashCode;
        uuidCharCodes[at++] = hexDigitCodes[byte >>> 4] as number;
        uuidCharCodes[at++] = hexDigitCodes[byte & 0x0f] as number;
      }
    }
    return String.fromCharCode.apply(null, uuidCharCodes);
  }
}
