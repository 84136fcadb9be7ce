/**
 * How the kubelet reaches the sockets of CSI drivers and their registrars. On a Linux node that is
 * a real Unix socket and gRPC (`socket-csi-connector.ts`); on a simulated node the socket is a
 * socket file on the SimHost plus an in-process connection to whoever listens on it
 * (`sim-csi-connector.ts`), so the simulator stays deterministic. Callers see the same thing
 * either way: typed clients whose calls carry the kubelet's deadline, whose failures are CsiErrors.
 */
import type { CsiClient } from "../../../../csi/grpc/services.ts";
import type { PluginRegistrationClient } from "../registration/plugin-registration-api.ts";

export interface CsiConnector {
  /** The driver listening at `socketPath` (a host path, as `PluginInfo.endpoint` gives it). Dials lazily. */
  connectDriver(socketPath: string): CsiClient;
  /** The registrar listening at `socketPath` under `plugins_registry/`. Dials lazily. */
  connectRegistration(socketPath: string): PluginRegistrationClient;
}
