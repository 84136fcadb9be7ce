/**
 * TLS to etcd, as kube-apiserver configures it: `--etcd-cafile` (the CA that signed etcd's serving
 * certificate; the system's CAs when absent), `--etcd-certfile` and `--etcd-keyfile` (the client
 * certificate etcd's `--client-cert-auth` asks for) with `https://` URLs in `--etcd-servers`. The
 * files are read and checked before any connection, each error naming the flag and the file; a
 * handshake that fails is explained by `etcdTlsHint` in the same terms.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { rootCertificates } from "node:tls";
import { errorMessage } from "../../runtime/error-message.ts";

/** kube-apiserver's flag names. */
export const etcdCaFileFlag = "--etcd-cafile";
export const etcdCertFileFlag = "--etcd-certfile";
export const etcdKeyFileFlag = "--etcd-keyfile";

export interface EtcdTlsFiles {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** What the etcd client is given: PEM bytes as gRPC's createSsl takes them. */
export interface EtcdCredentials {
  rootCertificate: Buffer;
  privateKey?: Buffer;
  certChain?: Buffer;
}

export interface EtcdTls {
  files: EtcdTlsFiles;
  credentials: EtcdCredentials;
}

function readPem(flag: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${flag} ${path}: cannot read it: ${errorMessage(error)}`, { cause: error });
  }
}

function certificate(flag: string, path: string, pem: Buffer): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new Error(`${flag} ${path}: not a PEM certificate (${errorMessage(error)})`, { cause: error });
  }
}

function clientPair(certFile: string, keyFile: string): { certChain: Buffer; privateKey: Buffer } {
  const certChain = readPem(etcdCertFileFlag, certFile);
  const privateKey = readPem(etcdKeyFileFlag, keyFile);
  const cert = certificate(etcdCertFileFlag, certFile, certChain);
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(privateKey);
  } catch (error) {
    throw new Error(`${etcdKeyFileFlag} ${keyFile}: not a PEM private key (${errorMessage(error)})`, { cause: error });
  }
  if (!cert.checkPrivateKey(key)) {
    throw new Error(
      `${etcdKeyFileFlag} ${keyFile} is not the key of the certificate in ${etcdCertFileFlag} ${certFile}`,
    );
  }
  return { certChain, privateKey };
}

/** Reads and checks the files; undefined when none is given (https URLs then trust the system's CAs). */
export function loadEtcdTls(files: EtcdTlsFiles): EtcdTls | undefined {
  const { caFile, certFile, keyFile } = files;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new Error(
      `${etcdCertFileFlag} and ${etcdKeyFileFlag} go together: give both the client certificate and its key`,
    );
  }
  if (caFile === undefined && certFile === undefined) return undefined;
  let rootCertificate: Buffer;
  if (caFile === undefined) {
    rootCertificate = Buffer.from(rootCertificates.join("\n"));
  } else {
    rootCertificate = readPem(etcdCaFileFlag, caFile);
    certificate(etcdCaFileFlag, caFile, rootCertificate);
  }
  const pair = certFile === undefined || keyFile === undefined ? {} : clientPair(certFile, keyFile);
  return { files, credentials: { rootCertificate, ...pair } };
}

/** Checks `--etcd-servers` against the TLS flags: every URL https:// with any of them, never a mix. */
export function checkEtcdUrlsForTls(urls: readonly string[], files: EtcdTlsFiles): void {
  const secure = urls.filter((url) => url.startsWith("https://"));
  if (secure.length > 0 && secure.length < urls.length) {
    throw new Error("--etcd-servers: mixes http:// and https:// URLs; etcd is reached over one or the other");
  }
  const given = [
    [etcdCaFileFlag, files.caFile],
    [etcdCertFileFlag, files.certFile],
    [etcdKeyFileFlag, files.keyFile],
  ].filter(([, path]) => path !== undefined);
  if (given.length > 0 && secure.length === 0) {
    throw new Error(
      `${given.map(([flag]) => flag).join(", ")} need https:// URLs in --etcd-servers (got ${urls.join(",")})`,
    );
  }
}

/** etcd's certificate was not signed by a CA the client trusts (Node's TLS messages). */
const untrustedServer =
  /unable to verify the first certificate|self[- ]signed certificate|unable to get (local )?issuer certificate|certificate signature failure/i;
/** etcd refused the client's certificate, or the lack of one (TLS alerts 42, 48, 116). */
const refusedClient = /alert bad certificate|alert unknown ca|alert certificate required|alert handshake failure/i;
/** etcd's certificate does not name the host of the URL. */
const wrongName = /Hostname\/IP does not match certificate's altnames|ERR_TLS_CERT_ALTNAME_INVALID/i;

/** What to do about a failed TLS handshake with etcd, naming the flag and file; undefined for other errors. */
export function etcdTlsHint(message: string, tls: EtcdTls | undefined): string | undefined {
  const { caFile, certFile } = tls?.files ?? {};
  if (untrustedServer.test(message)) {
    return caFile === undefined
      ? `etcd's serving certificate is not signed by a CA this machine trusts: give the CA that signed it with ${etcdCaFileFlag}`
      : `etcd's serving certificate is not signed by the CA in ${etcdCaFileFlag} ${caFile}`;
  }
  if (wrongName.test(message)) {
    return "etcd's serving certificate does not name the host of its --etcd-servers URL (its subjectAltName)";
  }
  if (refusedClient.test(message)) {
    return certFile === undefined
      ? `etcd asks for a client certificate: give ${etcdCertFileFlag} and ${etcdKeyFileFlag}`
      : `etcd refused the client certificate in ${etcdCertFileFlag} ${certFile} (is it signed by a CA in etcd's --trusted-ca-file?)`;
  }
  return undefined;
}
