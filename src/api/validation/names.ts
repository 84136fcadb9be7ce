/**
 * Kubernetes' name and key formats (k8s.io/apimachinery/pkg/util/validation): each check returns
 * the list of reasons a value fails, word for word as Kubernetes gives them, and an empty list when
 * it is valid.
 */

const dns1123LabelMaxLength = 63;
const dns1123SubdomainMaxLength = 253;
const qualifiedNameMaxLength = 63;
const labelValueMaxLength = 63;

const dns1123LabelFormat = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123SubdomainFormat = `${dns1123LabelFormat}(\\.${dns1123LabelFormat})*`;
const qualifiedNameFormat = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const labelValueFormat = `(${qualifiedNameFormat})?`;
const configKeyFormat = "[-._a-zA-Z0-9]+";
const percentFormat = "[0-9]+%";

const dns1123LabelMessage =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const dns1123SubdomainMessage =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const qualifiedNameMessage =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueMessage =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const configKeyMessage = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const percentMessage = "a valid percent string must be a numeric string followed by an ending '%'";

function anchored(format: string): RegExp {
  return new RegExp(`^${format}$`);
}

const dns1123LabelPattern = anchored(dns1123LabelFormat);
const dns1123SubdomainPattern = anchored(dns1123SubdomainFormat);
const qualifiedNamePattern = anchored(qualifiedNameFormat);
const labelValuePattern = anchored(labelValueFormat);
const configKeyPattern = anchored(configKeyFormat);
const percentPattern = anchored(percentFormat);

/** Kubernetes' MaxLenError. */
function maxLengthMessage(maxLength: number): string {
  return `must be no more than ${maxLength} characters`;
}

/** Kubernetes' RegexError, including its quirk of a double space before each " or ". */
export function regexMessage(message: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${format}')`;
  const quoted = examples.map((example, position) => `${position > 0 ? " or " : ""}'${example}', `).join("");
  return `${message} (e.g. ${quoted}regex used for validation is '${format}')`;
}

/** Length in bytes, as Go's len() counts a string. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

export function dns1123LabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > dns1123LabelMaxLength) problems.push(maxLengthMessage(dns1123LabelMaxLength));
  if (!dns1123LabelPattern.test(value)) {
    // A valid subdomain that is not a valid label (length already checked) can only have dots.
    problems.push(
      dns1123SubdomainPattern.test(value)
        ? "must not contain dots"
        : regexMessage(dns1123LabelMessage, dns1123LabelFormat, "my-name", "123-abc"),
    );
  }
  return problems;
}

export function dns1123SubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > dns1123SubdomainMaxLength) problems.push(maxLengthMessage(dns1123SubdomainMaxLength));
  if (!dns1123SubdomainPattern.test(value)) {
    problems.push(regexMessage(dns1123SubdomainMessage, dns1123SubdomainFormat, "example.com"));
  }
  return problems;
}

function qualifiedNameRegexMessage(): string {
  return regexMessage(qualifiedNameMessage, qualifiedNameFormat, "MyName", "my.name", "123-abc");
}

/**
 * True for a well-formed qualified name. The patterns admit ASCII only, so a matching string's
 * length is its byte length; this spares the common, valid key the split and byte counting.
 */
function isValidQualifiedName(value: string): boolean {
  const slash = value.indexOf("/");
  if (slash === -1) return value.length <= qualifiedNameMaxLength && qualifiedNamePattern.test(value);
  if (slash !== value.lastIndexOf("/")) return false;
  const prefix = value.slice(0, slash);
  const name = value.slice(slash + 1);
  return (
    prefix.length <= dns1123SubdomainMaxLength &&
    name.length <= qualifiedNameMaxLength &&
    dns1123SubdomainPattern.test(prefix) &&
    qualifiedNamePattern.test(name)
  );
}

/** Kubernetes' "qualified name": an optional DNS subdomain prefix and `/`, then a name part (label keys). */
export function qualifiedNameProblems(value: string): string[] {
  if (isValidQualifiedName(value)) return [];
  const parts = value.split("/");
  if (parts.length > 2) {
    return [
      `a qualified name ${qualifiedNameRegexMessage()} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  const problems: string[] = [];
  const name = parts.length === 2 ? (parts[1] ?? "") : value;
  if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    if (prefix.length === 0) problems.push("prefix part must be non-empty");
    else problems.push(...dns1123SubdomainProblems(prefix).map((problem) => `prefix part ${problem}`));
  }
  if (name.length === 0) problems.push("name part must be non-empty");
  else if (byteLength(name) > qualifiedNameMaxLength) {
    problems.push(`name part ${maxLengthMessage(qualifiedNameMaxLength)}`);
  }
  if (!qualifiedNamePattern.test(name)) problems.push(`name part ${qualifiedNameRegexMessage()}`);
  return problems;
}

export function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > labelValueMaxLength) problems.push(maxLengthMessage(labelValueMaxLength));
  if (!labelValuePattern.test(value)) {
    problems.push(regexMessage(labelValueMessage, labelValueFormat, "MyValue", "my_value", "12345"));
  }
  return problems;
}

/** Keys of Secret and ConfigMap data (they become file names in volumes). */
export function configKeyProblems(value: string): string[] {
  const problems: string[] = [];
  if (byteLength(value) > dns1123SubdomainMaxLength) problems.push(maxLengthMessage(dns1123SubdomainMaxLength));
  if (!configKeyPattern.test(value)) {
    problems.push(regexMessage(configKeyMessage, configKeyFormat, "key.name", "KEY_NAME", "key-name"));
  }
  if (value === ".") problems.push("must not be '.'");
  else if (value === "..") problems.push("must not be '..'");
  else if (value.startsWith("..")) problems.push("must not start with '..'");
  return problems;
}

export function percentProblems(value: string): string[] {
  return percentPattern.test(value) ? [] : [regexMessage(percentMessage, percentFormat, "1%", "93%")];
}

/** How a kind's object names are checked: `prefix` is true for generateName, which may end in `-`. */
export type NameRule = (name: string, prefix: boolean) => string[];

/** A generateName may end in `-`; Kubernetes masks that before checking (its maskTrailingDash). */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDnsSubdomain: NameRule = (name, prefix) =>
  dns1123SubdomainProblems(prefix ? maskTrailingDash(name) : name);

export const nameIsDnsLabel: NameRule = (name, prefix) => dns1123LabelProblems(prefix ? maskTrailingDash(name) : name);
