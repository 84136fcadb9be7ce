/**
 * Test support: an S3-compatible object store on the loopback interface (s3rver, which keeps
 * objects as files under a directory), for s3fs to serve fuse.csi.kvol.io volumes from. Port 0, so
 * parallel runs never collide; no network beyond 127.0.0.1.
 *
 * s3rver checks request signatures against its own canonical request, which differs from s3fs's
 * for path-style requests; `allowMismatchedSignatures` lets s3fs in (the tests are about FUSE, not
 * about S3's signature scheme). The key pair is s3rver's fixed one.
 */
import { chmod, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";

interface S3rverOptions {
  address: string;
  port: number;
  silent: boolean;
  directory: string;
  allowMismatchedSignatures: boolean;
  configureBuckets: Array<{ name: string }>;
}

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

const S3rver = createRequire(import.meta.url)("@20minutes/s3rver") as new (options: S3rverOptions) => S3rverInstance;

/** s3rver's account: access key and secret key. */
const s3rverKeyPair = "S3RVER:S3RVER";
/** s3fs refuses a credentials file that others can read. */
const passwdFileMode = 0o600;

export interface LocalS3Server {
  /** `http://127.0.0.1:<port>` */
  url: string;
  bucket: string;
  /** A 0600 file with the key pair, as s3fs's `passwd_file` wants it. */
  passwdFile: string;
  /** The object `key` of the bucket as anyone reads it over HTTP, or undefined when there is none. */
  getObject(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Starts a store keeping its objects under `dir`, with one empty bucket. */
export async function startLocalS3Server(dir: string, bucket: string): Promise<LocalS3Server> {
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: join(dir, "objects"),
    allowMismatchedSignatures: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const url = `http://127.0.0.1:${port}`;
  const passwdFile = join(dir, "passwd-s3fs");
  await writeFile(passwdFile, `${s3rverKeyPair}\n`, { mode: passwdFileMode });
  await chmod(passwdFile, passwdFileMode);
  return {
    url,
    bucket,
    passwdFile,
    getObject: async (key) => {
      const response = await fetch(`${url}/${bucket}/${key}`);
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`GET ${bucket}/${key} answered ${response.status}: ${await response.text()}`);
      return response.text();
    },
    close: () => server.close(),
  };
}
