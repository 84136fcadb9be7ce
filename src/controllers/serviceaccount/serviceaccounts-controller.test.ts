import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { startWorkloadTestEnv, type WorkloadTestEnv } from "../workloads/testing/workload-test-env.ts";
import { ServiceAccountsController } from "./serviceaccounts-controller.ts";

describe("the service accounts controller", () => {
  let env: WorkloadTestEnv;
  beforeEach(async () => {
    env = await startWorkloadTestEnv((context) => [new ServiceAccountsController(context)]);
  });
  afterEach(() => env.stop());

  async function accountNames(namespace: string): Promise<string[]> {
    const list = await env.api.client.resource("ServiceAccount").list({ namespace });
    return list.items.map((account) => account.metadata?.name ?? "");
  }

  it("gives a new namespace its default ServiceAccount, and gives it back after a delete", async () => {
    await env.api.client.namespaces.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "backup" } });
    await env.runFor(1_000);
    assert.deepEqual(await accountNames("backup"), ["default"]);
    await env.api.client.resource("ServiceAccount").delete("backup", "default");
    await env.runFor(1_000);
    assert.deepEqual(await accountNames("backup"), ["default"]);
  });
});
