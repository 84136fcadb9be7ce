/**
 * Job defaults (batch/v1 `SetDefaults_Job`): one completion at a time unless told otherwise, six
 * retries, the template's labels on the job when it has none, and the pod template's defaults.
 */
import type { KObject } from "../objects.ts";
import { type Fields, fillMissing, isRecord, updateField } from "./fill.ts";
import { defaultPodSpec } from "./pod-defaults.ts";

/** Kubernetes retries a failing Job's pods six times before marking it Failed. */
const defaultJobBackoffLimit = 6;

function defaultJobSpec(spec: Fields): Fields {
  const counts: Fields =
    spec.completions === undefined && spec.parallelism === undefined
      ? { completions: 1, parallelism: 1 }
      : { parallelism: 1 };
  const next = fillMissing(spec, {
    ...counts,
    backoffLimit: defaultJobBackoffLimit,
    completionMode: "NonIndexed",
    suspend: false,
    podReplacementPolicy: "TerminatingOrFailed",
  });
  return updateField(next, "template", (template) => updateField(template, "spec", defaultPodSpec));
}

export function defaultJob(job: KObject): KObject {
  if (!isRecord(job.spec)) return job;
  const spec = defaultJobSpec(job.spec);
  const templateLabels =
    isRecord(spec.template) && isRecord(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  const hasLabels = isRecord(job.metadata?.labels) && Object.keys(job.metadata.labels).length > 0;
  const metadata =
    !hasLabels && isRecord(templateLabels)
      ? { ...job.metadata, labels: { ...(templateLabels as Record<string, string>) } }
      : job.metadata;
  return spec === job.spec && metadata === job.metadata
    ? job
    : { ...job, spec, ...(metadata === undefined ? {} : { metadata }) };
}
