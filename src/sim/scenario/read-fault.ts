/**
 * A fault named on the timeline (`fault:` or `heal:`): its name must be in the catalogue and its
 * parameters must suit it, checked when the scenario is read rather than minutes into the run.
 */

import { errorMessage } from "../../runtime/error-message.ts";
import { faultNamed } from "../faults/catalogue.ts";
import type { FaultDefinition, FaultParams, FaultParamValue } from "../faults/fault.ts";
import { FaultArgs } from "../faults/fault-args.ts";
import { describeValue, Fields, isMapping } from "./fields.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

export const faultFields = ["name", "params", "healAfter"] as const;
export const healFields = ["name", "params"] as const;

interface FaultUse {
  readonly fault: string;
  readonly params: FaultParams;
  readonly healAfterMs?: number;
}

export function readFaultUse(
  source: YamlSource,
  path: FieldPath,
  value: unknown,
  options: { allowHealAfter: boolean; mustHeal?: boolean; atMs: number },
): FaultUse {
  const fields: Fields = Fields.of(source, path, value, options.allowHealAfter ? faultFields : healFields);
  const name = fields.requiredString("name");
  const definition = lookUpFault(fields, name);
  const params = readParams(fields);
  recordNameParams(fields, params, options.atMs);
  try {
    new FaultArgs(definition, params);
  } catch (error) {
    fields.fail("params", errorMessage(error));
  }
  const lasting = definition.heal !== undefined;
  if ((options.mustHeal || fields.has("healAfter")) && !lasting) {
    fields.fail(options.mustHeal ? "name" : "healAfter", `fault ${name} happens once and cannot be healed`);
  }
  const healAfterMs = fields.duration("healAfter");
  return { fault: name, params, ...(healAfterMs === undefined ? {} : { healAfterMs }) };
}

/** The parameters that name a node or a CSI driver, checked against the cluster once the file is read. */
const nameParams = { node: "node", driver: "driver" } as const;

function recordNameParams(fields: Fields, params: FaultParams, atMs: number): void {
  for (const [param, kind] of Object.entries(nameParams)) {
    const name = params[param];
    if (typeof name !== "string") continue;
    fields.source.names.use({ kind, name, path: [...fields.at("params"), param], atMs });
  }
}

function lookUpFault(fields: Fields, name: string): FaultDefinition {
  try {
    return faultNamed(name);
  } catch (error) {
    return fields.fail("name", errorMessage(error));
  }
}

function readParams(fields: Fields): FaultParams {
  const raw = fields.raw("params");
  if (raw === undefined || raw === null) return {};
  if (!isMapping(raw)) fields.fail("params", `expected a mapping of parameters, got ${describeValue(raw)}`);
  const params: Record<string, FaultParamValue> = {};
  for (const [key, item] of Object.entries(raw)) {
    if (typeof item !== "string" && typeof item !== "number" && typeof item !== "boolean") {
      fields.source.fail(
        [...fields.at("params"), key],
        `expected text, a number or true/false, got ${describeValue(item)}`,
      );
    }
    params[key] = item;
  }
  return params;
}
