/** POSIX shell single-quoting: the word reaches the command exactly as given, whatever it holds. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
