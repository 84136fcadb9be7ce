import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { containerArgv, containerEnv } from "./container-command.ts";

const image = { entrypoint: ["/entry"], cmd: ["serve", "--port=80"], env: ["PATH=/bin", "A=image"], workingDir: "/" };

describe("container command line", () => {
  it("combines the pod's command and args with the image's entrypoint and cmd as Kubernetes does", () => {
    assert.deepEqual(containerArgv(image, [], []), ["/entry", "serve", "--port=80"]);
    assert.deepEqual(containerArgv(image, ["sleep"], []), ["sleep"]);
    assert.deepEqual(containerArgv(image, ["sleep"], ["10"]), ["sleep", "10"]);
    assert.deepEqual(containerArgv(image, [], ["--port=81"]), ["/entry", "--port=81"]);
  });

  it("lets the container's environment override the image's", () => {
    assert.deepEqual(
      containerEnv(
        image,
        [
          { key: "A", value: "pod" },
          { key: "B", value: "x=y" },
        ],
        "web-0",
      ),
      {
        PATH: "/bin",
        A: "pod",
        HOSTNAME: "web-0",
        B: "x=y",
      },
    );
  });
});
