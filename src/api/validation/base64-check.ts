/**
 * Where standard base64 text goes wrong, as Go's encoding/base64 reports it, so a Secret with a
 * value that is not base64 gets the message `kubectl` users know: `illegal base64 data at input
 * byte 4`. (Kubernetes rejects it while decoding the request; kvol reports it as a field problem.)
 */

const base64Alphabet = /^[A-Za-z0-9+/]$/;
const charactersPerQuantum = 4;
const padding = "=";

function isLineBreak(character: string | undefined): boolean {
  return character === "\n" || character === "\r";
}

function skipLineBreaks(text: string, from: number): number {
  let offset = from;
  while (offset < text.length && isLineBreak(text[offset])) offset++;
  return offset;
}

interface QuantumResult {
  /** Where the next quantum starts, or undefined when the text ended (validly) in this one. */
  next?: number;
  problemAt?: number;
}

/** Go's decodeQuantum, reduced to finding the first problem. */
function checkQuantum(text: string, start: number): QuantumResult {
  let offset = start;
  for (let place = 0; place < charactersPerQuantum; place++) {
    if (offset === text.length) return place === 0 ? {} : { problemAt: offset - place };
    const character = text.charAt(offset);
    offset++;
    if (base64Alphabet.test(character)) continue;
    if (isLineBreak(character)) {
      place--;
      continue;
    }
    // Padding may only fill the last one or two places of the final quantum.
    if (character !== padding || place < 2) return { problemAt: offset - 1 };
    if (place === 2) {
      offset = skipLineBreaks(text, offset);
      if (offset === text.length) return { problemAt: text.length };
      if (text[offset] !== padding) return { problemAt: offset - 1 };
      offset++;
    }
    offset = skipLineBreaks(text, offset);
    return offset < text.length ? { problemAt: offset } : {};
  }
  return { next: offset };
}

/** The byte offset of the first problem, or undefined when the text decodes. */
export function base64ProblemOffset(text: string): number | undefined {
  let offset: number | undefined = 0;
  while (offset !== undefined && offset < text.length) {
    const result = checkQuantum(text, offset);
    if (result.problemAt !== undefined) return result.problemAt;
    offset = result.next;
  }
  return undefined;
}

export function base64ProblemMessage(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

/** Decoded size in bytes of text that base64ProblemOffset accepted. */
export function decodedLength(text: string): number {
  const characters = text.replace(/[\r\n=]/g, "").length;
  return Math.floor((characters * 3) / charactersPerQuantum);
}
