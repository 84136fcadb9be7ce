/**
 * Go's `%q` verb (strconv.Quote) for the messages kvol copies from Kubernetes, e.g.
 * `Last error: "mount failed: exit status 32"`. Printable characters stay as they are; quotes,
 * backslashes and control characters are escaped as Go escapes them.
 */

const namedEscapes: Readonly<Record<string, string>> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
  '"': '\\"',
  "\\": "\\\\",
};

/** Code points below this are C0 control characters. */
const firstPrintableAsciiCodePoint = 0x20;
const deleteCodePoint = 0x7f;

function escapeCharacter(character: string): string {
  const named = namedEscapes[character];
  if (named !== undefined) return named;
  const codePoint = character.codePointAt(0) ?? 0;
  if (codePoint < firstPrintableAsciiCodePoint || codePoint === deleteCodePoint) {
    return `\\x${codePoint.toString(16).padStart(2, "0")}`;
  }
  return character;
}

const doubleQuoteCode = 0x22;
const backslashCode = 0x5c;

/** Whether some character is one escapeCharacter changes: a C0 control, DEL, a double quote or a backslash. */
function needsEscape(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < firstPrintableAsciiCodePoint || code === deleteCodePoint) return true;
    if (code === doubleQuoteCode || code === backslashCode) return true;
  }
  return false;
}

/** `text` in double quotes with Go's escaping. */
export function goQuote(text: string): string {
  // Nearly every quoted name and message has nothing to escape: no walk character by character.
  if (!needsEscape(text)) return `"${text}"`;
  let quoted = '"';
  for (const character of text) quoted += escapeCharacter(character);
  return `${quoted}"`;
}
