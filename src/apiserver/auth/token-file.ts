/**
 * kube-apiserver's static token file (`--token-auth-file`): one user per line,
 *
 *   token,user,uid,"group1,group2"
 *
 * the groups column optional and quoted when it holds several groups. Blank lines and lines
 * starting with `#` are skipped. A malformed line is an error naming its line number, so a typo
 * cannot silently lock a user out.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import type { UserInfo } from "./user-info.ts";

export interface TokenEntry {
  readonly token: string;
  readonly user: UserInfo;
}

/** Splits one CSV line; a field in double quotes may hold commas, `""` stands for a quote. */
function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quoted && char === '"' && line[index + 1] === '"') {
      field += '"';
      index++;
    } else if (char === '"') {
      quoted = !quoted;
    } else if (char === "," && !quoted) {
      fields.push(field);
      field = "";
    } else {
      field += char;
    }
  }
  if (quoted) throw new Error("a quoted field is not closed");
  fields.push(field);
  return fields;
}

function parseLine(line: string): TokenEntry {
  const fields = splitCsvLine(line).map((field) => field.trim());
  if (fields.length < 3 || fields.length > 4) {
    throw new Error(`expected token,user,uid[,"group1,group2"] but found ${fields.length} fields`);
  }
  const [token = "", name = "", uid = "", groups = ""] = fields;
  if (token === "") throw new Error("the token is empty");
  if (name === "") throw new Error("the user name is empty");
  const groupList = groups
    .split(",")
    .map((group) => group.trim())
    .filter((group) => group !== "");
  return { token, user: { name, uid, groups: groupList } };
}

/** Every entry of the file's text; `source` names the file in errors. */
export function parseTokenFile(text: string, source: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    let entry: TokenEntry;
    try {
      entry = parseLine(line);
    } catch (error) {
      throw new Error(`${source} line ${index + 1}: ${errorMessage(error)}`);
    }
    if (seen.has(entry.token))
      throw new Error(`${source} line ${index + 1}: this token is already used on an earlier line`);
    seen.add(entry.token);
    entries.push(entry);
  }
  return entries;
}

function quoteField(text: string): string {
  return /[",]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line of the file for `entry`, the inverse of parsing. */
export function formatTokenLine(entry: TokenEntry): string {
  const { token, user } = entry;
  const fields = [token, user.name, user.uid].map(quoteField);
  if (user.groups.length > 0) fields.push(`"${user.groups.join(",")}"`);
  return fields.join(",");
}
