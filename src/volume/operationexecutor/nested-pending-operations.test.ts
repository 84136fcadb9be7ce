import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ExponentialBackoffError } from "../../runtime/backoff.ts";
import { Logger, MemorySink } from "../../runtime/logger.ts";
import { VirtualClock } from "../../runtime/virtual-clock.ts";
import { MountPreConditionFailed } from "../errors.ts";
import { NestedPendingOperations } from "./nested-pending-operations.ts";
import { AlreadyExistsError, isExpectedError } from "./operation-errors.ts";
import { type OperationKey, operationKey } from "./operation-key.ts";
import type { OperationName } from "./operation-names.ts";

interface Fixture {
  clock: VirtualClock;
  logs: MemorySink;
  operations: NestedPendingOperations;
}

function fixture(): Fixture {
  const clock = new VirtualClock();
  const logs = new MemorySink();
  const logger = new Logger({ clock, sink: logs, level: "debug" });
  return { clock, logs, operations: new NestedPendingOperations({ clock, logger }) };
}

/** An operation that runs until the test ends it. */
function gate(): { operation: () => Promise<void>; succeed: () => void; fail: (err: Error) => void } {
  let succeed: () => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    succeed = resolve;
    fail = reject;
  });
  return { operation: () => done, succeed, fail };
}

const neverEnding = (): Promise<void> => new Promise(() => undefined);
const failing = (message: string) => async (): Promise<void> => {
  throw new Error(message);
};

function key(volume: string, pod: string, node: string, name: OperationName = "volume_attach"): OperationKey {
  return operationKey(volume, pod, node, name);
}

async function settle(clock: VirtualClock): Promise<void> {
  await clock.advanceBy(0);
}

describe("NestedPendingOperations: which pending operation refuses which new one", () => {
  const cases: Array<{ pending: OperationKey; refused: OperationKey[]; allowed: OperationKey[] }> = [
    {
      pending: key("vol", "", ""),
      refused: [
        key("vol", "", ""),
        key("vol", "pod", ""),
        key("vol", "", "node"),
        key("vol", "pod", "node", "volume_mount"),
      ],
      allowed: [key("other", "", "")],
    },
    {
      pending: key("vol", "pod", ""),
      refused: [key("vol", "pod", ""), key("vol", "", ""), key("vol", "", "node"), key("vol", "pod", "node")],
      allowed: [key("vol", "pod-2", ""), key("vol", "pod-2", "node")],
    },
    {
      pending: key("vol", "", "node"),
      refused: [key("vol", "", "node"), key("vol", "pod", "node"), key("vol", "", ""), key("vol", "pod", "")],
      allowed: [key("vol", "", "node-2"), key("vol", "pod", "node-2")],
    },
  ];
  for (const { pending, refused, allowed } of cases) {
    it(`(${pending.volumeName},"${pending.podName}","${pending.nodeName}") pending`, () => {
      for (const candidate of [...refused, ...allowed]) {
        const { operations } = fixture();
        assert.equal(operations.run(pending, neverEnding), undefined);
        const expectRefusal = refused.includes(candidate);
        assert.equal(
          operations.isOperationPending(candidate.volumeName, candidate.podName, candidate.nodeName),
          expectRefusal,
        );
        const refusal = operations.run(candidate, neverEnding);
        assert.equal(refusal instanceof AlreadyExistsError, expectRefusal, JSON.stringify(candidate));
      }
    });
  }

  it("never deduplicates operations with an empty volume name", () => {
    const { operations } = fixture();
    const perNode = key("", "", "", "verify_volumes_are_attached_per_node");
    assert.equal(operations.run(perNode, neverEnding), undefined);
    assert.equal(operations.run(perNode, neverEnding), undefined);
    assert.equal(operations.pendingCount(), 2);
  });

  it("refuses with Kubernetes' message, naming the new key", () => {
    const { operations } = fixture();
    operations.run(key("kvol.io/sim-disk/disk-1", "", ""), neverEnding);
    const refusal = operations.run(key("kvol.io/sim-disk/disk-1", "", "node-2", "volume_attach"), neverEnding);
    assert.ok(refusal instanceof AlreadyExistsError);
    assert.equal(
      refusal.message,
      "Failed to create operation with name {volumeName:kvol.io/sim-disk/disk-1 podName: nodeName:node-2}. An operation with that name is already executing.",
    );
    assert.equal(isExpectedError(refusal), true);
  });

  it("lets the next operation start once the pending one succeeded", async () => {
    const { clock, operations } = fixture();
    const first = gate();
    operations.run(key("vol", "", ""), first.operation);
    await settle(clock);
    assert.equal(operations.pendingCount(), 1);
    first.succeed();
    await settle(clock);
    assert.equal(operations.isOperationPending("vol", "", ""), false);
    assert.equal(operations.run(key("vol", "", ""), neverEnding), undefined);
  });
});

describe("NestedPendingOperations: exponential backoff", () => {
  it("refuses a failed operation with the exact backoff message until strictly after its delay", async () => {
    const { clock, logs, operations } = fixture();
    const failed = key("kubernetes.io/csi/d^h", "", "", "volume_mount");
    operations.run(failed, failing("rpc error: code = Internal desc = boom"));
    await settle(clock);
    const refusal = operations.run(failed, neverEnding);
    assert.ok(refusal instanceof ExponentialBackoffError);
    assert.equal(
      refusal.message,
      'Failed to create operation with name "{volumeName:kubernetes.io/csi/d^h podName: nodeName:}". ' +
        "An operation with that name failed at 2026-01-01 00:00:00 +0000 UTC. " +
        "No retries permitted until 2026-01-01 00:00:00.5 +0000 UTC (500ms). " +
        'Last error: "rpc error: code = Internal desc = boom".',
    );
    assert.ok(
      logs
        .lines()
        .some((line) =>
          line.includes("No retries permitted until 2026-01-01 00:00:00.5 +0000 UTC (durationBeforeRetry 500ms)"),
        ),
    );
    await clock.advanceBy(500);
    assert.ok(operations.run(failed, neverEnding) instanceof ExponentialBackoffError, "exactly 500 ms is too early");
    await clock.advanceBy(1);
    assert.equal(operations.run(failed, neverEnding), undefined);
  });

  it("waits 500ms, 1s, 2s, … doubling to 2m2s between consecutive failures", async () => {
    const { clock, operations } = fixture();
    const failed = key("vol", "pod", "", "volume_mount");
    const expectedDelaysMs = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 122_000, 122_000, 122_000];
    for (const delayMs of expectedDelaysMs) {
      assert.equal(operations.run(failed, failing("mount failed")), undefined);
      await settle(clock);
      await clock.advanceBy(delayMs);
      assert.equal(operations.isOperationSafeToRetry("vol", "pod", "", "volume_mount"), false, `${delayMs} ms`);
      await clock.advanceBy(1);
      assert.equal(operations.isOperationSafeToRetry("vol", "pod", "", "volume_mount"), true, `${delayMs} ms + 1`);
    }
  });

  it("keeps backoff per operation name: a failed mount does not delay an unmount_device", async () => {
    const { clock, operations } = fixture();
    operations.run(key("vol", "", "", "volume_mount"), failing("mount failed"));
    await settle(clock);
    assert.equal(operations.isOperationSafeToRetry("vol", "", "", "volume_mount"), false);
    assert.equal(operations.isOperationSafeToRetry("vol", "", "", "unmount_device"), true);
    assert.equal(operations.run(key("vol", "", "", "unmount_device"), neverEnding), undefined);
  });

  it("resets the backoff after a success", async () => {
    const { clock, operations } = fixture();
    const mount = key("vol", "", "", "volume_mount");
    for (let failure = 0; failure < 3; failure++) {
      operations.run(mount, failing("mount failed"));
      await settle(clock);
      await clock.advanceBy(10_000);
    }
    operations.run(mount, async () => undefined);
    await settle(clock);
    operations.run(mount, failing("mount failed"));
    await settle(clock);
    await clock.advanceBy(501);
    assert.equal(operations.isOperationSafeToRetry("vol", "", "", "volume_mount"), true);
  });

  it("gives no backoff to an operation whose precondition did not hold", async () => {
    const { clock, operations } = fixture();
    const mount = key("vol", "", "", "volume_mount");
    operations.run(mount, async () => {
      throw new MountPreConditionFailed(
        "volume uses the ReadWriteOncePod access mode and is already in use by another pod",
      );
    });
    await settle(clock);
    assert.equal(operations.run(mount, neverEnding), undefined);
  });

  it("is not safe to retry while a colliding operation runs, whatever its name", () => {
    const { operations } = fixture();
    operations.run(key("vol", "", "", "unmount_device"), neverEnding);
    assert.equal(operations.isOperationSafeToRetry("vol", "pod", "", "volume_mount"), false);
    assert.equal(operations.isOperationSafeToRetry("other", "pod", "", "volume_mount"), true);
  });
});
