/**
 * The CsiConnector of a real node: gRPC over the Unix sockets the driver and its registrar bound.
 * Deadlines are wall-clock (grpc-js enforces them), so the clock must be a RealClock.
 */
import type { CsiCallHook } from "../../../../csi/grpc/call-log.ts";
import { connectCsiSocket } from "../../../../csi/grpc/client.ts";
import { unixEndpoint } from "../../../../csi/grpc/endpoint.ts";
import type { CsiClient } from "../../../../csi/grpc/services.ts";
import type { Clock } from "../../../../runtime/clock.ts";
import type { PluginRegistrationClient } from "../registration/plugin-registration-api.ts";
import { connectRegistrationSocket } from "../registration/registration-socket.ts";
import type { CsiConnector } from "./csi-connector.ts";

interface SocketCsiConnectorOptions {
  /** A RealClock. */
  clock: Clock;
  /** The deadline of each CSI call (csiTimeout). */
  callTimeoutMs: number;
  /** Sees every finished CSI call (timelines, diagnosis). */
  onCall?: CsiCallHook;
}

export class SocketCsiConnector implements CsiConnector {
  constructor(private readonly options: SocketCsiConnectorOptions) {}

  connectDriver(socketPath: string): CsiClient {
    const { clock, callTimeoutMs, onCall } = this.options;
    return connectCsiSocket({
      endpoint: unixEndpoint(socketPath),
      clock,
      callTimeoutMs,
      ...(onCall === undefined ? {} : { onCall }),
    });
  }

  connectRegistration(socketPath: string): PluginRegistrationClient {
    return connectRegistrationSocket({ socketPath, clock: this.options.clock });
  }
}
