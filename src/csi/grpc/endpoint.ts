/**
 * CSI endpoints: the spec allows only Unix domain sockets, named `unix:///abs/path/to/csi.sock`
 * (the form of `CSI_ENDPOINT`). Kubelet learns a bare host path at registration; `unixEndpoint`
 * turns it into this form.
 */

const unixScheme = "unix://";

/** Linux `sun_path` holds 108 bytes including the terminating NUL. */
export const maxUnixSocketPathBytes = 107;

/** The socket path inside a `unix:///…` endpoint, or an error naming what is wrong with it. */
export function socketPathOf(endpoint: string): string {
  if (!endpoint.startsWith(unixScheme)) {
    throw new Error(`CSI endpoint ${JSON.stringify(endpoint)} must start with "unix://" (CSI uses Unix sockets only)`);
  }
  const path = endpoint.slice(unixScheme.length);
  if (!path.startsWith("/")) {
    throw new Error(`CSI endpoint ${JSON.stringify(endpoint)} must name an absolute path: unix:///path/to/csi.sock`);
  }
  const pathBytes = Buffer.byteLength(path);
  if (pathBytes > maxUnixSocketPathBytes) {
    throw new Error(
      `CSI endpoint socket path is ${pathBytes} bytes, more than the ${maxUnixSocketPathBytes} a Unix socket ` +
        `address holds; use a shorter directory: ${path}`,
    );
  }
  return path;
}

/** `unix://` + an absolute socket path. */
export function unixEndpoint(socketPath: string): string {
  const endpoint = `${unixScheme}${socketPath}`;
  socketPathOf(endpoint);
  return endpoint;
}
