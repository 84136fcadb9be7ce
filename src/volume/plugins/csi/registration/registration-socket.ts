/**
 * The plugin-registration API over a real Unix socket with @grpc/grpc-js: the kubelet's client
 * (plaintext, a deadline per call, as the plugin manager dials) and a registrar's server (for a
 * kvol node-driver-registrar on a Linux node, and for tests). A gRPC failure arrives as a
 * CsiError, the same status-error type the CSI transports use.
 */
import { fileURLToPath } from "node:url";
import {
  Client,
  credentials,
  type handleUnaryCall,
  Metadata,
  Server,
  ServerCredentials,
  type ServiceError,
} from "@grpc/grpc-js";
import { loadSync, type MethodDefinition, type ServiceDefinition } from "@grpc/proto-loader";
import { csiErrorFromStatus, toCsiError } from "../../../../csi/grpc/errors.ts";
import type { Clock } from "../../../../runtime/clock.ts";
import type {
  PluginInfo,
  PluginRegistrationClient,
  PluginRegistrationService,
  RegistrationStatus,
} from "./plugin-registration-api.ts";

const protoPath = fileURLToPath(new URL("./plugin-registration.proto", import.meta.url));
const serviceName = "pluginregistration.Registration";

let loadedService: ServiceDefinition | undefined;

/** The Registration service definition, parsed on first use (same decoding choices as csi.proto). */
function registrationService(): ServiceDefinition {
  if (loadedService !== undefined) return loadedService;
  const definition = loadSync(protoPath, { keepCase: false, defaults: true, arrays: true, objects: true });
  const entry = definition[serviceName];
  if (entry === undefined || "format" in entry) throw new Error(`${protoPath} defines no service ${serviceName}`);
  loadedService = entry;
  return entry;
}

function method(name: "GetInfo" | "NotifyRegistrationStatus"): MethodDefinition<unknown, unknown> {
  const definition = registrationService()[name];
  if (definition === undefined) throw new Error(`${serviceName} has no RPC ${name}`);
  return definition as MethodDefinition<unknown, unknown>;
}

interface RegistrationSocketClientOptions {
  socketPath: string;
  /** A wall clock: grpc-js measures deadlines against real time. */
  clock: Clock;
}

/** A lazy connection to a registrar's socket: the first call dials it. */
export function connectRegistrationSocket(options: RegistrationSocketClientOptions): PluginRegistrationClient {
  const channel = new Client(`unix://${options.socketPath}`, credentials.createInsecure());
  const call = (name: "GetInfo" | "NotifyRegistrationStatus", request: object, timeoutMs: number): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const definition = method(name);
      channel.makeUnaryRequest(
        definition.path,
        definition.requestSerialize,
        definition.responseDeserialize,
        request,
        new Metadata(),
        { deadline: options.clock.now() + timeoutMs },
        (error: ServiceError | null, response?: unknown) => {
          if (error === null) resolve(response);
          else reject(csiErrorFromStatus(error.code, error.details));
        },
      );
    });
  return {
    getInfo: async (timeoutMs) => (await call("GetInfo", {}, timeoutMs)) as PluginInfo,
    notifyRegistrationStatus: async (status, timeoutMs) => {
      await call("NotifyRegistrationStatus", status, timeoutMs);
    },
    close: () => channel.close(),
  };
}

export interface RegistrationSocketServer {
  /** Stops serving and closes the socket. */
  stop(): Promise<void>;
}

function unary<Req>(handle: (request: Req) => Promise<unknown>): handleUnaryCall<Req, unknown> {
  return (call, callback) => {
    handle(call.request).then(
      (response) => callback(null, response),
      (error: unknown) => {
        const status = toCsiError(error);
        callback({ code: status.grpcCode, details: status.statusMessage });
      },
    );
  };
}

/** Serves `service` on `socketPath`, which must not exist yet. */
export function serveRegistrationSocket(
  socketPath: string,
  service: PluginRegistrationService,
): Promise<RegistrationSocketServer> {
  const server = new Server();
  server.addService(registrationService(), {
    GetInfo: unary(() => service.getInfo()),
    NotifyRegistrationStatus: unary(async (status: RegistrationStatus) => {
      await service.notifyRegistrationStatus(status);
      return {};
    }),
  });
  return new Promise((resolve, reject) => {
    server.bindAsync(`unix://${socketPath}`, ServerCredentials.createInsecure(), (error) => {
      if (error !== null) {
        reject(new Error(`cannot listen on registration socket ${socketPath}: ${error.message}`));
        return;
      }
      resolve({ stop: () => new Promise((done) => server.tryShutdown(() => done())) });
    });
  });
}
