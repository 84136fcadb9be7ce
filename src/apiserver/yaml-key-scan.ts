/**
 * Decoding a YAML body the way field validation needs it: repeated mapping keys are not an error
 * of the YAML itself (kube-apiserver reports them under fieldValidation, as `line 10: key "paused"
 * already set in map`, and keeps the last), so the document is read with repeated keys allowed
 * and each repetition is recorded with its line.
 */
import { isMap, isScalar, LineCounter, parseDocument, visit } from "yaml";
import { badRequest } from "../api/errors.ts";
import type { JsonKeyScan } from "./json-key-scan.ts";

function repeatedKeys(document: ReturnType<typeof parseDocument>, lines: LineCounter): JsonKeyScan {
  const scan: JsonKeyScan = { duplicates: [], firstOffsets: new Map() };
  visit(document, {
    Map(_key, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const key = String(pair.key.value);
        const offset = pair.key.range?.[0] ?? 0;
        if (seen.has(key)) {
          const line = lines.linePos(offset).line;
          scan.duplicates.push({ text: `line ${line}: key "${key}" already set in map`, path: "", offset });
        }
        seen.add(key);
      }
    },
  });
  return scan;
}

/** The YAML text's value (the last of repeated keys wins) and its repeated keys. */
export function decodeYamlWithKeys(text: string): { value: unknown; scan: JsonKeyScan } {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
  const [error] = document.errors;
  if (error !== undefined) throw badRequest(`the request body is not valid YAML: ${error.message}`);
  return { value: document.toJS({ maxAliasCount: 100 }) as unknown, scan: repeatedKeys(document, lines) };
}
