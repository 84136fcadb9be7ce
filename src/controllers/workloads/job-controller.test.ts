import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import type { Job } from "../../api/objects.ts";
import { JobController } from "./job-controller.ts";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "./testing/workload-test-env.ts";

function backupJob(options: { completions?: number; parallelism?: number; backoffLimit?: number } = {}): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "backup", namespace: "default" },
    spec: {
      ...options,
      template: {
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "tar", image: "busybox", volumeMounts: [{ name: "data", mountPath: "/data" }] }],
          volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }],
        },
      },
    },
  };
}

describe("the Job controller", () => {
  let env: WorkloadTestEnv;
  beforeEach(async () => {
    env = await startWorkloadTestEnv((context) => [new JobController(context)]);
  });
  afterEach(() => env.stop());

  async function finishPod(name: string, phase: "Succeeded" | "Failed"): Promise<void> {
    await env.api.client.pods.mutate(
      "default",
      name,
      (draft) => {
        draft.status = { ...draft.status, phase };
      },
      { subresource: "status" },
    );
    await env.runFor(1_000);
  }

  async function job(): Promise<Job> {
    return env.api.client.resource("Job").get("default", "backup");
  }

  it("runs a pod with the job's labels and claim, and marks the job Complete when it succeeds", async () => {
    await env.api.client.resource("Job").create(backupJob());
    await env.runFor(1_000);
    const [pod] = await env.pods();
    assert.ok(pod !== undefined, "one pod created");
    assert.match(pod.metadata?.name ?? "", /^backup-/);
    assert.equal(pod.metadata?.labels?.["batch.kubernetes.io/job-name"], "backup");
    assert.equal(pod.spec?.volumes?.[0]?.persistentVolumeClaim?.claimName, "data");
    assert.equal((await job()).status?.active, 1);
    await finishPod(pod.metadata?.name ?? "", "Succeeded");
    const done = await job();
    assert.equal(done.status?.succeeded, 1);
    assert.equal(done.status?.active, 0);
    assert.ok(done.status?.completionTime !== undefined);
    assert.deepEqual(
      done.status?.conditions?.map((c) => [c.type, c.status]),
      [["Complete", "True"]],
    );
    assert.ok((await env.eventTexts()).includes("Completed: Job completed"));
  });

  it("runs parallelism pods at a time until completions have succeeded", async () => {
    await env.api.client.resource("Job").create(backupJob({ completions: 3, parallelism: 2 }));
    await env.runFor(1_000);
    assert.equal((await env.pods()).length, 2);
    const [first] = await env.podNames();
    await finishPod(first ?? "", "Succeeded");
    assert.equal((await env.pods()).length, 3, "a third pod replaces the one that finished");
    assert.equal((await job()).status?.succeeded, 1);
  });

  it("marks the job Failed with BackoffLimitExceeded once more pods failed than backoffLimit allows", async () => {
    await env.api.client.resource("Job").create(backupJob({ backoffLimit: 1 }));
    await env.runFor(1_000);
    await finishPod((await env.podNames())[0] ?? "", "Failed");
    const retried = (await env.pods()).filter((pod) => pod.status?.phase !== "Failed");
    assert.equal(retried.length, 1, "one failure is within the backoff limit: a new pod runs");
    await finishPod(retried[0]?.metadata?.name ?? "", "Failed");
    const failed = await job();
    assert.equal(failed.status?.failed, 2);
    const condition = failed.status?.conditions?.find((c) => c.type === "Failed");
    assert.equal(condition?.reason, "BackoffLimitExceeded");
    assert.equal(condition?.message, "Job has reached the specified backoff limit");
  });
});
