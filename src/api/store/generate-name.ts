/**
 * `metadata.generateName`: the prefix plus random characters, as Kubernetes'
 * `names.SimpleNameGenerator` makes them (`web-` → `web-7xq2k`).
 */
import { generateNameAlphabet, generateNameSuffixLength } from "./constants.ts";

/** Kubernetes truncates the prefix so prefix + suffix fits a 63-character DNS label. */
const maxGeneratedNameLength = 63 - generateNameSuffixLength;

interface NameRandom {
  /** A uniform integer in [min, maxInclusive]. */
  int(min: number, maxInclusive: number): number;
}

export function generateName(prefix: string, random: NameRandom): string {
  let suffix = "";
  for (let i = 0; i < generateNameSuffixLength; i++) {
    suffix += generateNameAlphabet.charAt(random.int(0, generateNameAlphabet.length - 1));
  }
  return prefix.slice(0, maxGeneratedNameLength) + suffix;
}
