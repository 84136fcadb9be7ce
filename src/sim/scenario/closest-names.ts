/** Suggestions for a misspelt name: the known names nearest by edit distance. */

const suggestionCount = 3;

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Up to three of `known`, closest to `name` first (ties in the order given). */
export function closestNames(name: string, known: readonly string[]): string[] {
  const lower = name.toLowerCase();
  return known
    .map((candidate, index) => ({ candidate, index, distance: editDistance(lower, candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, suggestionCount)
    .map((entry) => entry.candidate);
}
