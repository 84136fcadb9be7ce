/**
 * The /proc/self/mountinfo format (proc(5)):
 *
 *   36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
 *   (1)(2)(3)   (4)   (5)      (6)      (7)   (8) (9)   (10)         (11)
 *
 * Optional fields (7) run until the lone `-`. The kernel escapes space, tab, newline and backslash in
 * paths as three-digit octal (`\040`), so a path with a space still is one field.
 */
import type { MountInfo } from "../host.ts";

/** Fields before the optional ones: id, parent id, major:minor, root, mount point, mount options. */
const fixedLeadingFieldCount = 6;
/** Fields after the `-` separator: filesystem type, source, super options. */
const trailingFieldCount = 3;
const optionalFieldsSeparator = "-";

class MountInfoParseError extends Error {
  constructor(lineNumber: number, line: string, problem: string) {
    super(`mountinfo line ${lineNumber} ${problem}: ${JSON.stringify(line)}`);
    this.name = "MountInfoParseError";
  }
}

/** Decodes the kernel's octal escapes (`\040` → space, `\134` → backslash). */
function unescapeMountInfoField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_escape, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Encodes a path the way the kernel writes it into mountinfo (the inverse of unescapeMountInfoField). */
export function escapeMountInfoField(path: string): string {
  return path.replace(/[ \t\n\\]/g, (char) => `\\${char.charCodeAt(0).toString(8).padStart(3, "0")}`);
}

/** Parses the whole text of a mountinfo file; empty lines are ignored, malformed lines throw. */
export function parseMountInfo(text: string): MountInfo[] {
  const mounts: MountInfo[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    mounts.push(parseMountInfoLine(line, index + 1));
  }
  return mounts;
}

function parseMountInfoLine(line: string, lineNumber: number): MountInfo {
  const fields = line.split(" ");
  const separatorIndex = fields.indexOf(optionalFieldsSeparator, fixedLeadingFieldCount);
  if (separatorIndex < 0) {
    throw new MountInfoParseError(lineNumber, line, "has no ' - ' separator after the optional fields");
  }
  if (fields.length - separatorIndex - 1 < trailingFieldCount) {
    throw new MountInfoParseError(
      lineNumber,
      line,
      `has ${fields.length - separatorIndex - 1} fields after ' - ', expected ${trailingFieldCount}`,
    );
  }
  const [id, parentId, majorMinor, root, mountPoint, options] = fields as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  const [fsType, source, superOptions] = fields.slice(separatorIndex + 1) as [string, string, string];
  return {
    id: parseDecimalField(id, "mount id", lineNumber, line),
    parentId: parseDecimalField(parentId, "parent id", lineNumber, line),
    majorMinor: parseMajorMinor(majorMinor, lineNumber, line),
    root: unescapeMountInfoField(root),
    mountPoint: unescapeMountInfoField(mountPoint),
    options: options.split(","),
    fsType: unescapeMountInfoField(fsType),
    source: unescapeMountInfoField(source),
    superOptions: superOptions.split(","),
  };
}

function parseDecimalField(field: string, name: string, lineNumber: number, line: string): number {
  if (!/^\d+$/.test(field)) throw new MountInfoParseError(lineNumber, line, `has a ${name} that is not a number`);
  return Number(field);
}

function parseMajorMinor(field: string, lineNumber: number, line: string): string {
  if (!/^\d+:\d+$/.test(field)) throw new MountInfoParseError(lineNumber, line, "has a device that is not major:minor");
  return field;
}

/** Renders mount entries back into mountinfo text (used by models of the kernel and by tests). */
export function formatMountInfo(mounts: readonly MountInfo[]): string {
  return mounts
    .map(
      (m) =>
        `${m.id} ${m.parentId} ${m.majorMinor} ${escapeMountInfoField(m.root)} ${escapeMountInfoField(m.mountPoint)} ` +
        `${m.options.join(",")} - ${escapeMountInfoField(m.fsType)} ${escapeMountInfoField(m.source)} ${m.superOptions.join(",")}\n`,
    )
    .join("");
}
