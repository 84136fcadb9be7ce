/**
 * Whether an executable is statically linked: an ELF file without a PT_INTERP program header needs
 * no dynamic loader, so it runs inside any root filesystem (the container images kvol builds from
 * the machine's busybox, and the runtime's helper that finishes a container's pivot_root).
 */
import { open } from "node:fs/promises";

const elfMagic = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const elfClass64 = 2;
const ptInterp = 3;
/** Enough for the ELF header and any program header table a real binary has. */
const headerReadBytes = 64 * 1024;

export async function isStaticElf(path: string): Promise<boolean> {
  const file = await open(path, "r");
  try {
    const buffer = Buffer.alloc(headerReadBytes);
    const { bytesRead } = await file.read(buffer, 0, headerReadBytes, 0);
    return bytesRead >= 64 && programHeaderTypes(buffer.subarray(0, bytesRead)).every((type) => type !== ptInterp);
  } finally {
    await file.close();
  }
}

/** The p_type of each program header (little-endian 64-bit ELF; anything else reads as dynamic). */
function programHeaderTypes(elf: Buffer): number[] {
  if (!elf.subarray(0, 4).equals(elfMagic) || elf[4] !== elfClass64) return [ptInterp];
  const offset = Number(elf.readBigUInt64LE(0x20));
  const entrySize = elf.readUInt16LE(0x36);
  const count = elf.readUInt16LE(0x38);
  const types: number[] = [];
  for (let index = 0; index < count; index++) {
    const at = offset + index * entrySize;
    if (at + 4 > elf.length) return [ptInterp];
    types.push(elf.readUInt32LE(at));
  }
  return types;
}
