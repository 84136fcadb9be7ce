/**
 * The CsiConnector of a simulated node: a "dial" looks the socket path up in the node's socket
 * table (sim-socket-table.ts) at every call, and the call runs in-process through the same codecs
 * and call log as over a real socket (`connectCsiInProcess`), with the kubelet's deadline on the
 * node's Clock. Failing to reach a listener reads as grpc-go words it:
 * `connection error: desc = "transport: Error while dialing: dial unix <path>: connect: …"`.
 */
import type { CsiCallHook } from "../../../../csi/grpc/call-log.ts";
import { dispatchRpc, implementationOf } from "../../../../csi/grpc/dispatch.ts";
import { CsiError, clientDeadlineExceeded } from "../../../../csi/grpc/errors.ts";
import { connectCsiInProcess } from "../../../../csi/grpc/in-process.ts";
import { type CsiRpc, csiRpcsOf } from "../../../../csi/grpc/rpcs.ts";
import { type CsiClient, type CsiImplementations, csiServiceNames } from "../../../../csi/grpc/services.ts";
import type { CsiServiceName } from "../../../../csi/proto/load.ts";
import { type Host, isHostError } from "../../../../host/host.ts";
import type { Clock } from "../../../../runtime/clock.ts";
import { errorMessage } from "../../../../runtime/error-message.ts";
import type {
  PluginInfo,
  PluginRegistrationClient,
  PluginRegistrationService,
  RegistrationStatus,
} from "../registration/plugin-registration-api.ts";
import type { CsiConnector } from "./csi-connector.ts";
import {
  type SimSocketListener,
  type SimSocketService,
  type SimSocketTable,
  simSocketTable,
} from "./sim-socket-table.ts";

interface SimCsiConnectorOptions {
  /** The node, as the caller sees it: where the socket files are looked up. */
  host: Host;
  /** The node's socket table; `simSocketTable(host)` by default (give it when `host` wraps the SimHost). */
  sockets?: SimSocketTable;
  clock: Clock;
  /** The deadline of each CSI call (csiTimeout). */
  callTimeoutMs: number;
  onCall?: CsiCallHook;
}

type SocketKind = SimSocketService["kind"];

function dialError(socketPath: string, reason: string): CsiError {
  return new CsiError(
    "Unavailable",
    `connection error: desc = "transport: Error while dialing: dial unix ${socketPath}: connect: ${reason}"`,
  );
}

/** Resolves after `promise`, or fails with DeadlineExceeded once `timeoutMs` passed on `clock`. */
function withDeadline<T>(clock: Clock, timeoutMs: number, promise: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(timeoutMs, () => reject(clientDeadlineExceeded()));
    promise.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}

export class SimCsiConnector implements CsiConnector {
  private readonly sockets: SimSocketTable;

  constructor(private readonly options: SimCsiConnectorOptions) {
    this.sockets = options.sockets ?? simSocketTable(options.host);
  }

  connectDriver(socketPath: string): CsiClient {
    const { clock, callTimeoutMs, onCall } = this.options;
    const forwarding = (service: CsiServiceName): object => this.forwardingService(socketPath, service);
    const [identity, controller, node] = csiServiceNames.map(forwarding);
    // The forwarding objects carry one method per RPC of their service (built from the RPC table),
    // which is what the three service interfaces list.
    const implementations = { identity, controller, node } as unknown as CsiImplementations;
    return connectCsiInProcess({
      ...implementations,
      deadline: { clock, callTimeoutMs },
      ...(onCall === undefined ? {} : { onCall }),
    });
  }

  connectRegistration(socketPath: string): PluginRegistrationClient {
    const { clock } = this.options;
    const call = async <T>(timeoutMs: number, run: (service: PluginRegistrationService) => Promise<T>): Promise<T> => {
      const listener = await this.reach(socketPath, "registration");
      if (listener.service.kind !== "registration") throw dialError(socketPath, "connection refused");
      const { service } = listener.service;
      return withDeadline(
        clock,
        timeoutMs,
        listener.serve(() => run(service)),
      );
    };
    return {
      getInfo: (timeoutMs): Promise<PluginInfo> => call(timeoutMs, (service) => service.getInfo()),
      notifyRegistrationStatus: (status: RegistrationStatus, timeoutMs): Promise<void> =>
        call(timeoutMs, (service) => service.notifyRegistrationStatus(status)),
      close: () => undefined,
    };
  }

  /** An object with every RPC of `service`, each forwarded to whoever listens at `socketPath` now. */
  private forwardingService(socketPath: string, service: CsiServiceName): object {
    const forward = (rpc: CsiRpc) => async (request: unknown) => {
      const listener = await this.reach(socketPath, "csi");
      const implementation =
        listener.service.kind === "csi" ? implementationOf(listener.service.implementations, service) : undefined;
      if (implementation === undefined) throw new CsiError("Unimplemented", `unknown service csi.v1.${service}`);
      const outcome = await listener.serve(() => dispatchRpc(implementation, rpc, request));
      if ("error" in outcome) throw outcome.error;
      return outcome.response;
    };
    return Object.fromEntries(csiRpcsOf(service).map((rpc) => [rpc.handlerName, forward(rpc)]));
  }

  /** The listener behind `socketPath`, or the dial error a client would get. */
  private async reach(socketPath: string, kind: SocketKind): Promise<SimSocketListener> {
    const { host } = this.options;
    let fileType: string;
    try {
      fileType = (await host.lstat(socketPath)).type;
    } catch (err) {
      if (isHostError(err, "ENOENT")) throw dialError(socketPath, "no such file or directory");
      throw new CsiError("Unavailable", errorMessage(err));
    }
    const listener = this.sockets.listenerAt(socketPath);
    if (fileType !== "socket" || listener === undefined || listener.service.kind !== kind) {
      throw dialError(socketPath, "connection refused");
    }
    return listener;
  }
}
