/**
 * Kubernetes' resource.Quantity: `1Gi`, `500M`, `1.5Gi`, `100m`, `1e3`, parsed and printed the way
 * the API server does it.
 *
 * A quantity is held as an exact bigint count of nano-units (value × 10^9). That is lossless for
 * everything Kubernetes can represent: the API server itself rounds every parsed value up to a whole
 * number of nano-units, and a binary suffix times any decimal fraction is a finite decimal.
 */

type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** Kubernetes' resource.ErrFormatWrong text, word for word. */
export const quantityFormatMessage =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** Kubernetes' resource.ErrSuffix text. */
export const quantitySuffixMessage = "unable to parse quantity's suffix";

const nanosPerUnit = 1_000_000_000n;
const nanosPerMilli = 1_000_000n;
/** The scale of a nano-unit: a quantity is `nanos × 10^nanoExponent` units. */
const nanoExponent = -9;
/** Kubernetes caps BinarySI amounts at the largest int64 (resource.maxAllowed). */
const maxBinaryUnits = (1n << 63n) - 1n;
/**
 * `1e999999` would make a bigint with a million digits; Kubernetes never needs more than a few
 * dozen, so exponents beyond this magnitude are refused as an unparsable suffix.
 */
const maxExponentMagnitude = 1000;
/** Below this magnitude a BinarySI quantity prints in decimal (`512`, not `0.5Ki`), as Kubernetes does. */
const binaryPrintThresholdUnits = 1024n;

/** Decimal SI suffixes and the power of ten each stands for. */
const decimalSuffixExponents: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
/** Binary SI suffixes and the power of two each stands for. */
const binarySuffixExponents: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const binarySuffixesByPowerOf1024 = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;
const decimalSuffixesByExponent: ReadonlyMap<number, string> = new Map(
  [...decimalSuffixExponents].map(([suffix, exponent]) => [exponent, suffix]),
);
const largestDecimalSuffixExponent = 18;
const suffixCharacters = "eEinumkKMGTP";

export class QuantityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuantityParseError";
  }
}

export class Quantity {
  /** The amount in nano-units: `1Gi` is 1073741824 × 10^9, `100m` is 10^8. */
  readonly nanos: bigint;
  /** How the quantity prints: the family of the suffix it was written with. */
  readonly format: QuantityFormat;

  constructor(nanos: bigint, format: QuantityFormat) {
    this.nanos = nanos;
    this.format = format;
  }

  /** A whole number of units (bytes for storage), printed with binary suffixes (`1Gi`). */
  static fromBytes(bytes: bigint, format: QuantityFormat = "BinarySI"): Quantity {
    return new Quantity(bytes * nanosPerUnit, format);
  }

  static fromMilli(milli: bigint, format: QuantityFormat = "DecimalSI"): Quantity {
    return new Quantity(milli * nanosPerMilli, format);
  }

  /** -1, 0 or 1, as Kubernetes' Quantity.Cmp. */
  static compare(a: Quantity, b: Quantity): -1 | 0 | 1 {
    return a.compare(b);
  }

  compare(other: Quantity): -1 | 0 | 1 {
    if (this.nanos === other.nanos) return 0;
    return this.nanos < other.nanos ? -1 : 1;
  }

  equals(other: Quantity): boolean {
    return this.nanos === other.nanos;
  }

  /** The sum, in this quantity's format (the other's when this one is zero, as Kubernetes' Add). */
  add(other: Quantity): Quantity {
    return new Quantity(this.nanos + other.nanos, this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    return new Quantity(this.nanos - other.nanos, this.isZero() ? other.format : this.format);
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  sign(): -1 | 0 | 1 {
    if (this.nanos === 0n) return 0;
    return this.nanos < 0n ? -1 : 1;
  }

  /** Kubernetes' Value(): whole units, fractions rounded away from zero (`0.5` → 1). */
  toBytes(): bigint {
    return divideRoundingAwayFromZero(this.nanos, nanosPerUnit);
  }

  /** Kubernetes' MilliValue(): thousandths, fractions rounded away from zero. */
  toMilli(): bigint {
    return divideRoundingAwayFromZero(this.nanos, nanosPerMilli);
  }

  /** The canonical form Kubernetes prints (`1Gi`, `500M`, `1536Mi`, `100m`). */
  toString(): string {
    return formatQuantity(this);
  }

  toJSON(): string {
    return formatQuantity(this);
  }
}

function divideRoundingAwayFromZero(dividend: bigint, divisor: bigint): bigint {
  const quotient = dividend / divisor;
  if (dividend % divisor === 0n) return quotient;
  return dividend > 0n ? quotient + 1n : quotient - 1n;
}

function tenToThe(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}

function isDigit(character: string | undefined): boolean {
  return character !== undefined && character >= "0" && character <= "9";
}

interface QuantityParts {
  negative: boolean;
  /** Integer digits, leading zeros stripped ("0" when there are none). */
  whole: string;
  /** Digits after the decimal point. */
  fraction: string;
  suffix: string;
}

/** Index of the first character at or after `from` that is not a decimal digit. */
function skipDigits(text: string, from: number): number {
  let index = from;
  while (isDigit(text[index])) index++;
  return index;
}

/** Splits the text as Kubernetes' parseQuantityString does, including what it tolerates (`1.`, `.5`). */
function splitQuantity(text: string): QuantityParts {
  let position = 0;
  const negative = text[0] === "-";
  if (text[0] === "-" || text[0] === "+") position++;
  while (text[position] === "0") position++;
  const wholeEnd = skipDigits(text, position);
  const whole = text.slice(position, wholeEnd) || "0";
  position = wholeEnd;
  let fraction = "";
  if (text[position] === ".") {
    const fractionEnd = skipDigits(text, position + 1);
    fraction = text.slice(position + 1, fractionEnd);
    position = fractionEnd;
  }
  const suffixStart = position;
  while (position < text.length && suffixCharacters.includes(text.charAt(position))) position++;
  if (text[position] === "-" || text[position] === "+") position++;
  position = skipDigits(text, position);
  if (position !== text.length) throw new QuantityParseError(quantityFormatMessage);
  return { negative, whole, fraction, suffix: text.slice(suffixStart) };
}

interface SuffixMeaning {
  base: 10 | 2;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): SuffixMeaning {
  const decimal = decimalSuffixExponents.get(suffix);
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: "DecimalSI" };
  const binary = binarySuffixExponents.get(suffix);
  if (binary !== undefined) return { base: 2, exponent: binary, format: "BinarySI" };
  const exponentText = suffix.slice(1);
  if ((suffix[0] === "e" || suffix[0] === "E") && /^[-+]?[0-9]+$/.test(exponentText)) {
    const exponent = Number(exponentText);
    if (Math.abs(exponent) <= maxExponentMagnitude) return { base: 10, exponent, format: "DecimalExponent" };
  }
  throw new QuantityParseError(quantitySuffixMessage);
}

/** The magnitude in nano-units, rounded up to a whole nano-unit as Kubernetes rounds. */
function magnitudeInNanos(parts: QuantityParts, meaning: SuffixMeaning): bigint {
  const digits = BigInt(parts.whole + parts.fraction);
  let numerator = digits * nanosPerUnit;
  let denominator = tenToThe(parts.fraction.length);
  if (meaning.base === 2) numerator <<= BigInt(meaning.exponent);
  else if (meaning.exponent >= 0) numerator *= tenToThe(meaning.exponent);
  else denominator *= tenToThe(-meaning.exponent);
  const nanos = divideRoundingAwayFromZero(numerator, denominator);
  if (meaning.format === "BinarySI" && nanos > maxBinaryUnits * nanosPerUnit) return maxBinaryUnits * nanosPerUnit;
  return nanos;
}

/**
 * Parses a quantity as Kubernetes' resource.ParseQuantity. Throws QuantityParseError with
 * Kubernetes' own message for text it would refuse (`1GB`, `abc`, `1.2.3`, ` 1Gi`, `1K`).
 */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityParseError(quantityFormatMessage);
  const parts = splitQuantity(text);
  const meaning = interpretSuffix(parts.suffix);
  const magnitude = magnitudeInNanos(parts, meaning);
  return new Quantity(parts.negative ? -magnitude : magnitude, meaning.format);
}

/** Divides out every factor of `base`, as Kubernetes' removeInt64Factors. */
function removeFactors(value: bigint, base: bigint): { remainder: bigint; times: number } {
  let remainder = value < 0n ? -value : value;
  let times = 0;
  while (remainder >= base && remainder % base === 0n) {
    remainder /= base;
    times++;
  }
  return { remainder: value < 0n ? -remainder : remainder, times };
}

function formatDecimal(nanos: bigint, format: QuantityFormat): string {
  const stripped = removeFactors(nanos, 10n);
  let mantissa = stripped.remainder;
  let exponent = nanoExponent + stripped.times;
  // Kubernetes prints a mantissa with an exponent that is a multiple of three (1500M, not 1.5G).
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === "DecimalExponent") return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  // Kubernetes drops the suffix above E (a bug); printing in E keeps the value right instead.
  if (exponent > largestDecimalSuffixExponent) {
    mantissa *= tenToThe(exponent - largestDecimalSuffixExponent);
    exponent = largestDecimalSuffixExponent;
  }
  return `${mantissa}${decimalSuffixesByExponent.get(exponent) ?? ""}`;
}

function formatBinary(units: bigint): string {
  const { remainder, times } = removeFactors(units, 1024n);
  const largest = binarySuffixesByPowerOf1024.length - 1;
  const power = Math.min(times, largest);
  const mantissa = remainder * 1024n ** BigInt(times - power);
  return `${mantissa}${binarySuffixesByPowerOf1024[power]}`;
}

/** The canonical text of a quantity, as Kubernetes' Quantity.String(). */
export function formatQuantity(quantity: Quantity): string {
  const { nanos } = quantity;
  if (nanos === 0n) return "0";
  if (quantity.format === "BinarySI") {
    const threshold = binaryPrintThresholdUnits * nanosPerUnit;
    const small = nanos > -threshold && nanos < threshold;
    // Binary suffixes only print whole units; anything else would round, so it prints in decimal.
    if (!small && nanos % nanosPerUnit === 0n) return formatBinary(nanos / nanosPerUnit);
    return formatDecimal(nanos, "DecimalSI");
  }
  return formatDecimal(nanos, quantity.format);
}
