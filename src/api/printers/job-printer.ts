/**
 * The columns of `kubectl get jobs`: STATUS from the job's conditions, COMPLETIONS as
 * succeeded/wanted, DURATION from start to completion (or to now while it runs), and with
 * `-o wide` the containers, images and selector.
 */
import type { JobCondition } from "kubernetes-types/batch/v1.js";
import { parseRfc3339 } from "../../runtime/clock.ts";
import type { Job } from "../objects.ts";
import { ageSince, humanDuration } from "./human-duration.ts";
import { labelSelectorText } from "./label-selector-text.ts";
import { ageColumn, column, nameColumn, type ObjectPrinter } from "./table-types.ts";
import { containerCells, containersColumn, imagesColumn } from "./workload-printers.ts";

function hasCondition(conditions: readonly JobCondition[] | undefined, type: string): boolean {
  return (conditions ?? []).some((condition) => condition.type === type && condition.status === "True");
}

/** The STATUS cell, in the order kubectl checks the conditions. */
function jobStatusText(job: Job): string {
  const conditions = job.status?.conditions;
  if (hasCondition(conditions, "Complete")) return "Complete";
  if (hasCondition(conditions, "Failed")) return "Failed";
  if (job.metadata?.deletionTimestamp !== undefined) return "Terminating";
  if (hasCondition(conditions, "Suspended")) return "Suspended";
  if (hasCondition(conditions, "FailureTarget")) return "FailureTarget";
  return "Running";
}

function completionsText(job: Job): string {
  const succeeded = job.status?.succeeded ?? 0;
  const completions = job.spec?.completions;
  if (completions !== undefined && completions !== null) return `${succeeded}/${completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function durationText(job: Job, nowMs: number): string {
  const start = job.status?.startTime;
  if (start === undefined) return "";
  const end = job.status?.completionTime;
  const endMs = end === undefined ? nowMs : parseRfc3339(end);
  return humanDuration(endMs - parseRfc3339(start));
}

export const jobPrinter: ObjectPrinter<Job> = {
  columns: [
    nameColumn,
    column("Status", "Status of the job."),
    column("Completions", "The number of pods which reached phase Succeeded."),
    column("Duration", "Time required to complete the job."),
    ageColumn,
    containersColumn,
    imagesColumn,
    column("Selector", "A label query over pods that should match the pod count.", { priority: 1 }),
  ],
  row(job, nowMs) {
    return {
      cells: [
        job.metadata?.name ?? "",
        jobStatusText(job),
        completionsText(job),
        durationText(job, nowMs),
        ageSince(job.metadata?.creationTimestamp, nowMs),
        ...containerCells(job.spec?.template.spec?.containers),
        labelSelectorText(job.spec?.selector),
      ],
    };
  },
};
