/**
 * The columns of `kubectl get controllerrevisions`: the owning controller as `kind.group/name`
 * and the revision number.
 */
import type { ControllerRevision } from "../objects.ts";
import { ageSince } from "./human-duration.ts";
import { ageColumn, column, nameColumn, noneText, type ObjectPrinter } from "./table-types.ts";

function controllerText(revision: ControllerRevision): string {
  const owner = (revision.metadata?.ownerReferences ?? []).find((reference) => reference.controller === true);
  if (owner === undefined) return noneText;
  const slash = owner.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : owner.apiVersion.slice(0, slash);
  const kind = owner.kind.toLowerCase();
  return `${group === "" ? kind : `${kind}.${group}`}/${owner.name}`;
}

export const controllerRevisionPrinter: ObjectPrinter<ControllerRevision> = {
  columns: [
    nameColumn,
    column("Controller", "Controller of the object"),
    column("Revision", "Revision indicates the revision of the state represented by Data.", { type: "integer" }),
    ageColumn,
  ],
  row(revision, nowMs) {
    return {
      cells: [
        revision.metadata?.name ?? "",
        controllerText(revision),
        revision.revision,
        ageSince(revision.metadata?.creationTimestamp, nowMs),
      ],
    };
  },
};
