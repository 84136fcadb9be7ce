import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { testPod } from "../api/client/testing/test-api.ts";
import { badRequest } from "../api/errors.ts";
import type { KObject, Pod } from "../api/objects.ts";
import { type ResourceType, resourceForPlural } from "../api/resources.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { Rng } from "../runtime/rng.ts";
import { VirtualClock } from "../runtime/virtual-clock.ts";
import type { ContainerLogAnswer, KubeletConnections } from "./kubelet-connection.ts";
import { type RunningApiServer, startApiServer } from "./server.ts";

/** 2026-01-02T03:04:05.600Z */
const startMs = 1_767_323_045_600;
const pods = "/api/v1/namespaces/default/pods";
const podType = resourceForPlural("pods") as ResourceType;

describe("pods/log", () => {
  let server: RunningApiServer;
  let clock: VirtualClock;
  let answer: ContainerLogAnswer;
  let asked: { container: string; previous: boolean }[];

  beforeEach(async () => {
    clock = new VirtualClock({ startTimeMs: startMs });
    const store = createMemoryStore({ clock, random: new Rng(1).stream("store") });
    asked = [];
    answer = {
      entries: [
        { timeMs: startMs - 3000, stream: "stdout", text: "one" },
        { timeMs: startMs - 2000, stream: "stdout", text: "two" },
        { timeMs: startMs - 500, stream: "stdout", text: "three" },
      ],
      running: false,
    };
    const kubelets: KubeletConnections = {
      kubeletOf: (nodeName) =>
        nodeName !== "node-a"
          ? undefined
          : {
              containerLog: async (pod: Pod, container: string, previous: boolean) => {
                asked.push({ container, previous });
                if (previous)
                  throw badRequest(
                    `previous terminated container "${container}" in pod "${pod.metadata?.name}" not found`,
                  );
                return answer;
              },
            },
    };
    const logger = new Logger({ clock, sink: new MemorySink(), level: "debug" });
    server = await startApiServer({ store, clock, logger, port: 0, kubelets });
    await store.create(podType, testPod("default", "web", "node-a") as Pod & KObject);
    await store.create(podType, testPod("default", "far", "node-b") as Pod & KObject);
  });
  afterEach(() => server.close());

  async function get(path: string): Promise<{ status: number; text: string }> {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, text: await response.text() };
  }

  it("answers the container's lines as text, with tailLines, timestamps and sinceSeconds", async () => {
    assert.deepEqual(await get(`${pods}/web/log`), { status: 200, text: "one\ntwo\nthree\n" });
    assert.equal((await get(`${pods}/web/log?tailLines=2`)).text, "two\nthree\n");
    assert.equal((await get(`${pods}/web/log?tailLines=1&timestamps=true`)).text, "2026-01-02T03:04:05.1Z three\n");
    assert.equal((await get(`${pods}/web/log?sinceSeconds=1`)).text, "three\n");
  });

  it("passes the kubelet's refusal on as a 400 Status in Kubernetes' words", async () => {
    const previous = await get(`${pods}/web/log?previous=true`);
    assert.equal(previous.status, 400);
    assert.match(previous.text, /previous terminated container \\"main\\" in pod \\"web\\" not found/);
    assert.deepEqual(asked.at(-1), { container: "main", previous: true });
  });

  it("refuses a container the pod does not have, and a node it does not know, clearly", async () => {
    const wrong = await get(`${pods}/web/log?container=nope`);
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /container nope is not valid for pod web/);
    const far = await get(`${pods}/far/log`);
    assert.equal(far.status, 404);
    assert.match(far.text, /nodes \\"node-b\\" not found/);
  });

  it("refuses a negative tailLines with the field", async () => {
    const refused = await get(`${pods}/web/log?tailLines=-1`);
    assert.equal(refused.status, 422);
    assert.match(
      refused.text,
      /PodLogOptions \\"web\\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0/,
    );
  });
});
