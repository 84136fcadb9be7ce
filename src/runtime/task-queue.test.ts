import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ScheduledTask, TaskQueue } from "./task-queue.ts";

let nextSequence = 0;
function task(dueMs: number): ScheduledTask {
  return { dueMs, sequence: nextSequence++, run: () => undefined, cancelled: false };
}

function drain(queue: TaskQueue): ScheduledTask[] {
  const out: ScheduledTask[] = [];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) out.push(next);
  return out;
}

describe("TaskQueue", () => {
  it("pops by due time, then by sequence", () => {
    const queue = new TaskQueue(100);
    const tasks = [task(30), task(10), task(30), task(0), task(10)];
    for (const scheduled of tasks) queue.push(scheduled);
    const order = drain(queue).map((popped) => tasks.indexOf(popped));
    assert.deepEqual(order, [3, 1, 4, 0, 2]);
  });

  it("skips cancelled tasks and counts only live ones", () => {
    const queue = new TaskQueue(100);
    const first = task(1);
    const second = task(2);
    queue.push(first);
    queue.push(second);
    assert.equal(queue.cancel(first), true);
    assert.equal(queue.cancel(first), false);
    assert.equal(queue.size, 1);
    assert.equal(queue.peek(), second);
    assert.equal(queue.pop(), second);
    assert.equal(queue.cancel(second), false, "a task that already ran cannot be cancelled");
    assert.equal(queue.size, 0);
  });

  it("keeps order after compacting many cancelled entries", () => {
    const queue = new TaskQueue(10_000);
    const tasks = Array.from({ length: 3_000 }, (_, index) => task((index * 7919) % 1000));
    for (const scheduled of tasks) queue.push(scheduled);
    for (const [index, scheduled] of tasks.entries()) if (index % 3 !== 0) queue.cancel(scheduled);
    const popped = drain(queue);
    assert.equal(popped.length, 1_000);
    for (let index = 1; index < popped.length; index++) {
      const previous = popped[index - 1] as ScheduledTask;
      const current = popped[index] as ScheduledTask;
      assert.ok(
        previous.dueMs < current.dueMs || (previous.dueMs === current.dueMs && previous.sequence < current.sequence),
      );
    }
  });

  it("refuses to grow past its bound", () => {
    const queue = new TaskQueue(2);
    queue.push(task(1));
    queue.push(task(2));
    assert.throws(() => queue.push(task(3)), /cannot schedule more than 2 timers/);
  });
});
