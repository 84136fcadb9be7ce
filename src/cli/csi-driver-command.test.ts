import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { InProcessClient } from "../api/client/in-process-client.ts";
import { createMemoryStore } from "../api/store/memory-store.ts";
import { connectCsiSocket } from "../csi/grpc/client.ts";
import { unixEndpoint } from "../csi/grpc/endpoint.ts";
import { CsiNodeInfo } from "../kubelet/node/csi-node-info.ts";
import { Logger, MemorySink } from "../runtime/logger.ts";
import { RealClock } from "../runtime/real-clock.ts";
import { Rng } from "../runtime/rng.ts";
import { SocketCsiConnector } from "../volume/plugins/csi/connector/socket-csi-connector.ts";
import { CsiDriverRegistry } from "../volume/plugins/csi/csi-driver-registry.ts";
import {
  type CsiDriverNodeInfo,
  CsiRegistrationHandler,
} from "../volume/plugins/csi/registration/csi-registration-handler.ts";
import { type CommandIo, parseCsiDriverArguments, runCsiDriverCommand } from "./csi-driver-command.ts";
import { waitFor } from "./testing/wait-for.ts";

interface CapturedIo extends CommandIo {
  out: string[];
  err: string[];
  requestStop: (signal: string) => void;
  serving: Promise<void>;
}

function capturedIo(): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  let requestStop: (signal: string) => void = () => undefined;
  const stop = new Promise<string>((resolve) => {
    requestStop = resolve;
  });
  let announceServing: () => void = () => undefined;
  const serving = new Promise<void>((resolve) => {
    announceServing = resolve;
  });
  return {
    out,
    err,
    serving,
    requestStop: (signal) => requestStop(signal),
    stdout: (text) => {
      out.push(text);
      if (text.includes("serving")) announceServing();
    },
    stderr: (text) => err.push(text),
    stopRequested: () => stop,
  };
}

const s3Flags = ["--s3-url", "http://127.0.0.1:9000", "--s3-bucket", "volumes", "--s3-passwd-file", "/etc/passwd-s3fs"];

describe("kvol csi-driver: arguments", () => {
  it("accepts a bundled driver with an endpoint, node id and state dir", () => {
    assert.deepEqual(
      parseCsiDriverArguments([
        "hostpath.csi.kvol.io",
        "--endpoint",
        "unix:///run/csi/csi.sock",
        "--node-id=node-1",
        "--state-dir",
        "/srv/volumes",
      ]),
      {
        driverName: "hostpath.csi.kvol.io",
        endpoint: "unix:///run/csi/csi.sock",
        nodeId: "node-1",
        stateDir: "/srv/volumes",
      },
    );
  });

  it("takes an S3 store for fuse.csi.kvol.io, to serve volumes with s3fs", () => {
    assert.deepEqual(parseCsiDriverArguments(["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", ...s3Flags]), {
      driverName: "fuse.csi.kvol.io",
      endpoint: "unix:///x.sock",
      nodeId: hostname(),
      s3: { url: "http://127.0.0.1:9000", bucket: "volumes", passwdFile: "/etc/passwd-s3fs" },
    });
  });

  it("takes the API server as kvol node does: --server with its CA and token file, or a kubeconfig", () => {
    const dir = mkdtempSync(join(tmpdir(), "kvol-csi-args-"));
    try {
      const caPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
      writeFileSync(join(dir, "ca.crt"), caPem);
      writeFileSync(join(dir, "token"), "plugin-token\n");
      writeFileSync(
        join(dir, "kubeconfig"),
        `apiVersion: v1
kind: Config
clusters: [{ name: kvol, cluster: { server: "https://10.0.0.2:8080", certificate-authority: ca.crt } }]
users: [{ name: admin, user: { token: admin-token } }]
contexts: [{ name: kvol, context: { cluster: kvol, user: admin } }]
current-context: kvol
`,
      );
      const base = ["fuse.csi.kvol.io", "--endpoint", "unix:///run/csi/csi.sock", "--node-id=node-1"];
      assert.deepEqual(
        parseCsiDriverArguments([
          ...base,
          ...["--server", "https://10.0.0.1:6443", "--certificate-authority", join(dir, "ca.crt")],
          ...["--token-file", join(dir, "token"), "--kubelet-root-dir", "/srv/kubelet"],
        ]),
        {
          driverName: "fuse.csi.kvol.io",
          endpoint: "unix:///run/csi/csi.sock",
          nodeId: "node-1",
          server: { serverUrl: "https://10.0.0.1:6443", token: "plugin-token", caPem },
          kubeletRootDir: "/srv/kubelet",
        },
      );
      const fromKubeconfig = parseCsiDriverArguments([...base, "--kubeconfig", join(dir, "kubeconfig")]);
      assert.deepEqual("server" in fromKubeconfig && fromKubeconfig.server, {
        serverUrl: "https://10.0.0.2:8080",
        token: "admin-token",
        caPem,
      });
      const overridden = parseCsiDriverArguments([...base, "--kubeconfig", join(dir, "kubeconfig"), "--token", "t2"]);
      assert.equal("server" in overridden && overridden.server?.token, "t2");
      const missing = parseCsiDriverArguments([...base, "--server", "https://h:1", "--token-file", join(dir, "none")]);
      assert.match("error" in missing ? missing.error : "", /^cannot read --token-file .*none: ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const badArguments: Array<[string[], RegExp]> = [
    [[], /the driver NAME is missing/],
    [["hostpath.csi.kvol.io"], /--endpoint is required/],
    [
      ["nfs.csi.k8s.io", "--endpoint", "unix:///x.sock"],
      /no bundled driver is named "nfs.csi.k8s.io"; choose one of hostpath/,
    ],
    [["hostpath.csi.kvol.io", "--endpoint", "/x.sock"], /must start with "unix:\/\/"/],
    [
      ["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", "--state-dir", "relative"],
      /--state-dir must be an absolute path/,
    ],
    [
      ["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", "--registration-dir", "plugins_registry"],
      /--registration-dir must be an absolute path, got "plugins_registry"/,
    ],
    [["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", "--colour"], /Unknown option '--colour'/],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--server", "127.0.0.1:8080"],
      /--server must be an https:\/\/ \(or http:\/\/\) URL, got "127.0.0.1:8080"/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--token-file", "/token"],
      /--token-file needs --server \(or --kubeconfig\)/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--token", "t"],
      /--token needs --server \(or --kubeconfig\)/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--certificate-authority", "/ca.crt"],
      /--certificate-authority needs --server/,
    ],
    [
      [
        "fuse.csi.kvol.io",
        "--endpoint",
        "unix:///x.sock",
        "--server",
        "https://a:1",
        "--token",
        "t",
        "--token-file",
        "/t",
      ],
      /give --token or --token-file, not both/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--kubeconfig", "/nonexistent/kubeconfig"],
      /\/nonexistent\/kubeconfig/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--s3-url", "http://127.0.0.1:9000"],
      /--s3-url, --s3-bucket and --s3-passwd-file go together; give all three/,
    ],
    [
      ["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", ...s3Flags],
      /--s3-url, --s3-bucket and --s3-passwd-file are for fuse.csi.kvol.io only/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", ...s3Flags, "--s3-url", "minio:9000"],
      /--s3-url must be an http:\/\/ or https:\/\/ URL, got "minio:9000"/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", ...s3Flags, "--s3-bucket", "a/b"],
      /--s3-bucket must be a bucket name, got "a\/b"/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", ...s3Flags, "--s3-passwd-file", "passwd"],
      /--s3-passwd-file must be an absolute path, got "passwd"/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--kubelet-root-dir", "kubelet"],
      /--kubelet-root-dir must be an absolute path, got "kubelet"/,
    ],
    [["hostpath.csi.kvol.io", "extra", "--endpoint", "unix:///x.sock"], /unexpected argument "extra"/],
    [
      ["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", "--capacity-limit", "lots"],
      /--capacity-limit must be a quantity of bytes such as 512Mi or 10Gi, got "lots"/,
    ],
    [
      ["disk.csi.kvol.io", "--endpoint", "unix:///x.sock", "--capacity-limit=0"],
      /--capacity-limit must be more than zero bytes/,
    ],
    [
      ["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", "--max-volumes-per-node", "two"],
      /--max-volumes-per-node must be a whole number from 0 to 2147483647, got "two"/,
    ],
    [
      ["disk.csi.kvol.io", "--endpoint", "unix:///x.sock", "--max-volumes-per-node=-1"],
      /--max-volumes-per-node must be a whole number from 0 to 2147483647, got "-1"/,
    ],
    [
      ["hostpath.csi.kvol.io", "--endpoint", "unix:///x.sock", "--fenceable"],
      /--fenceable is for disk.csi.kvol.io only/,
    ],
    [
      ["fuse.csi.kvol.io", "--endpoint", "unix:///x.sock", "--capacity-limit", "1Gi"],
      /--capacity-limit applies to hostpath.csi.kvol.io and disk.csi.kvol.io .*, not fuse.csi.kvol.io/,
    ],
  ];
  for (const [argv, message] of badArguments) {
    it(`exits 2 with the usage for: ${argv.join(" ") || "(nothing)"}`, async () => {
      const io = capturedIo();
      assert.equal(await runCsiDriverCommand(argv, io), 2);
      const printed = io.err.join("");
      assert.match(printed, message);
      assert.match(printed, /Usage:\n {2}kvol csi-driver NAME --endpoint/);
    });
  }

  it("--help prints the usage and exits 0", async () => {
    const io = capturedIo();
    assert.equal(await runCsiDriverCommand(["--help"], io), 0);
    assert.match(io.out.join(""), /--node-id/);
  });
});

describe("kvol csi-driver: serving", () => {
  let directory = "";
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "kvol-csi-cmd-"));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it("serves the named driver on the socket until a stop signal, then exits 0", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const io = capturedIo();
    const run = runCsiDriverCommand(["mock.csi.kvol.io", "--endpoint", endpoint, "--node-id", "node-7"], io);
    await io.serving;
    const client = connectCsiSocket({ endpoint, clock: new RealClock(), callTimeoutMs: 10_000 });
    try {
      assert.equal((await client.getPluginInfo({})).name, "mock.csi.kvol.io");
      assert.equal((await client.nodeGetInfo({})).nodeId, "node-7");
    } finally {
      client.close();
    }
    io.requestStop("SIGINT");
    assert.equal(await run, 0);
    assert.match(io.out.join(""), /SIGINT received, stopping/);
  });

  it("hostpath.csi.kvol.io with --capacity-limit reports that limit through GetCapacity", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const io = capturedIo();
    const argv = ["hostpath.csi.kvol.io", "--endpoint", endpoint, "--node-id", "node-7"];
    const run = runCsiDriverCommand([...argv, "--state-dir", join(directory, "state"), "--capacity-limit", "3Mi"], io);
    await io.serving;
    const client = connectCsiSocket({ endpoint, clock: new RealClock(), callTimeoutMs: 10_000 });
    try {
      const capacity = await client.getCapacity({
        volumeCapabilities: [],
        parameters: {},
        accessibleTopology: null,
      });
      assert.equal(capacity.availableCapacity, 3 * 1024 * 1024);
    } finally {
      client.close();
    }
    io.requestStop("SIGTERM");
    assert.equal(await run, 0);
  });

  it("fuse.csi.kvol.io refuses to start where bindfs is missing, saying so", async () => {
    // A PATH with nothing on it stands for a machine without bindfs, whether or not this one has it.
    const path = process.env.PATH;
    process.env.PATH = directory;
    try {
      const io = capturedIo();
      const endpoint = unixEndpoint(join(directory, "csi.sock"));
      assert.equal(await runCsiDriverCommand(["fuse.csi.kvol.io", "--endpoint", endpoint], io), 1);
      assert.match(io.err.join(""), /bindfs, which is not on PATH; install it first/);
    } finally {
      process.env.PATH = path;
    }
  });

  it("with --registration-dir registers with the kubelet, and exits 1 without its socket when the kubelet refuses it", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const registry = join(directory, "plugins_registry");
    mkdirSync(registry);
    const io = capturedIo();
    const run = runCsiDriverCommand(
      ["mock.csi.kvol.io", "--endpoint", endpoint, "--node-id", "node-7", "--registration-dir", registry],
      io,
    );
    const socketPath = join(registry, "mock.csi.kvol.io-reg.sock");
    await io.serving;
    await waitFor("the registration socket", () => existsSync(socketPath) || undefined, 10_000);
    const installed: CsiDriverNodeInfo[] = [];
    const kubelet = new CsiRegistrationHandler({
      connector: new SocketCsiConnector({ clock: new RealClock(), callTimeoutMs: 10_000 }),
      drivers: new CsiDriverRegistry(),
      nodeInfo: {
        installDriver: async (info) => {
          installed.push(info);
        },
        uninstallDriver: async () => undefined,
      },
      logger: { info: () => undefined, warning: () => undefined },
    });
    await kubelet.register(socketPath);
    assert.equal(installed[0]?.nodeId, "node-7", "the kubelet reached the driver's socket the registrar named");
    // A second registration of the same driver at the same version is refused by the kubelet.
    await assert.rejects(kubelet.register(socketPath), /ValidatePluginFunc failed/);
    assert.equal(await run, 1);
    assert.match(
      io.out.join(""),
      /Registration process failed with error: RegisterPlugin error -- plugin validation failed with err: kubernetes\.io\/csi: ValidatePlugin for CSI driver "mock\.csi\.kvol\.io" failed\. Another driver with the same name is already registered with a higher supported version: "1\.0\.0", restarting registration container\./,
    );
    assert.equal(existsSync(socketPath), false, "the registration socket is removed");
  });

  it("with --max-volumes-per-node 2 the kubelet's registration writes allocatable count 2 into the node's CSINode", async () => {
    const endpoint = unixEndpoint(join(directory, "csi.sock"));
    const registry = join(directory, "plugins_registry");
    mkdirSync(registry);
    const io = capturedIo();
    const argv = [
      "hostpath.csi.kvol.io",
      "--endpoint",
      endpoint,
      "--node-id",
      "node-7",
      "--registration-dir",
      registry,
    ];
    const run = runCsiDriverCommand(
      [...argv, "--state-dir", join(directory, "state"), "--max-volumes-per-node", "2"],
      io,
    );
    const socketPath = join(registry, "hostpath.csi.kvol.io-reg.sock");
    await io.serving;
    await waitFor("the registration socket", () => existsSync(socketPath) || undefined, 10_000);
    const clock = new RealClock();
    const client = new InProcessClient(createMemoryStore({ clock, random: new Rng(7).stream("store") }));
    await client.nodes.create({ apiVersion: "v1", kind: "Node", metadata: { name: "node-7" } });
    const logger = new Logger({ clock, sink: new MemorySink() });
    const csiNodeInfo = new CsiNodeInfo({ client, logger, nodeName: "node-7" });
    await csiNodeInfo.initialize();
    const kubelet = new CsiRegistrationHandler({
      connector: new SocketCsiConnector({ clock, callTimeoutMs: 10_000 }),
      drivers: new CsiDriverRegistry(),
      nodeInfo: csiNodeInfo,
      logger: { info: () => undefined, warning: () => undefined },
    });
    try {
      await kubelet.register(socketPath);
      const csiNode = await client.csiNodes.get("", "node-7");
      assert.deepEqual(
        csiNode.spec?.drivers?.map(({ name, nodeID, allocatable }) => ({ name, nodeID, allocatable })),
        [{ name: "hostpath.csi.kvol.io", nodeID: "node-7", allocatable: { count: 2 } }],
      );
    } finally {
      io.requestStop("SIGTERM");
      assert.equal(await run, 0);
    }
  });

  it("disk.csi.kvol.io --fenceable refuses to start where perl is missing, saying so", async () => {
    const path = process.env.PATH;
    process.env.PATH = directory;
    try {
      const io = capturedIo();
      const endpoint = unixEndpoint(join(directory, "csi.sock"));
      const argv = ["disk.csi.kvol.io", "--endpoint", endpoint, "--state-dir", join(directory, "disks"), "--fenceable"];
      assert.equal(await runCsiDriverCommand(argv, io), 1);
      assert.equal(
        io.err.join(""),
        "kvol csi-driver: --fenceable needs loop devices it can fence, and losetup is not on PATH (Debian and Ubuntu: apt-get install mount)\n",
      );
      assert.equal(existsSync(join(directory, "csi.sock")), false);
    } finally {
      process.env.PATH = path;
    }
  });

  it("fuse.csi.kvol.io with an S3 store refuses to start where s3fs is missing, saying so", async () => {
    const path = process.env.PATH;
    process.env.PATH = directory;
    try {
      const io = capturedIo();
      const endpoint = unixEndpoint(join(directory, "csi.sock"));
      assert.equal(await runCsiDriverCommand(["fuse.csi.kvol.io", "--endpoint", endpoint, ...s3Flags], io), 1);
      assert.match(
        io.err.join(""),
        /fuse.csi.kvol.io serves volumes with s3fs, which is not on PATH; install it first/,
      );
    } finally {
      process.env.PATH = path;
    }
  });
});
