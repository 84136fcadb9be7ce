/**
 * The crash campaign's load and its checks (`src/cli/crash-campaign.e2e.test.ts`): a seeded mix of
 * creates, updates and deletes of ConfigMaps, and of pods each with its own ReadWriteOnce claim (so
 * attaches and detaches are in flight), sent by a few workers until stopped — the server may be
 * killed at any moment. Every write the client got a success for is recorded; a write whose answer
 * never came (the server died first) makes its object uncertain, and uncertain objects are not
 * checked. After the restart:
 * - every acknowledged write reads back: a ConfigMap has the data last acknowledged, or is gone when
 *   its delete was acknowledged; an acknowledged pod or claim exists unless its delete was;
 * - the cluster converges: every pod that is not being deleted runs, no volume is attached to two
 *   nodes (VolumeAttachments, Node status), and no VolumeAttachment is left for a volume no pod on
 *   its node uses.
 */
import { Rng } from "../../runtime/rng.ts";
import { sleepMs, waitFor } from "./wait-for.ts";

type Json = Record<string, unknown>;

/** The API as the load sees it: a request that may throw when the server is gone. */
export interface LoadApi {
  request(method: string, path: string, body?: unknown): Promise<Response>;
}

/** How the load makes a claim: a class to provision from, or a static hostPath volume per claim. */
export type ClaimSource = { readonly storageClassName: string } | { readonly hostPath: true };

interface Acked {
  /** The data last acknowledged, or undefined when the delete was acknowledged. */
  value: string | undefined;
}

const namespacePath = "/api/v1/namespaces/default";
/** Workers sending writes at once. */
const loadWorkers = 3;
/** Pause between a worker's writes, so the load is steady rather than a burst. */
const loadPauseMs = 20;

export interface LoadFigures {
  /** Writes acknowledged, by kind. */
  readonly acknowledged: number;
  /** Writes whose answer never came. */
  readonly unanswered: number;
  /** Writes refused with an error status (a 409 on a name taken, a 404 on a name gone). */
  readonly refused: number;
}

export class CrashLoad {
  private readonly rng: Rng;
  private readonly configMaps = new Map<string, Acked>();
  private readonly pods = new Map<string, Acked>();
  private readonly uncertain = new Set<string>();
  private running = false;
  private workers: Promise<void>[] = [];
  private counter = 0;
  private acknowledged = 0;
  private unanswered = 0;
  private refused = 0;

  constructor(
    seed: number,
    private readonly claims: ClaimSource,
    private readonly maxPods: number,
  ) {
    this.rng = new Rng(seed).stream("crash-campaign/load");
  }

  figures(): LoadFigures {
    return { acknowledged: this.acknowledged, unanswered: this.unanswered, refused: this.refused };
  }

  /** Starts the workers against `api`. */
  start(api: LoadApi): void {
    this.running = true;
    this.workers = Array.from({ length: loadWorkers }, () => this.work(api));
  }

  /** Stops the workers (a write in flight finishes or fails first). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async work(api: LoadApi): Promise<void> {
    while (this.running) {
      await this.oneWrite(api);
      await sleepMs(loadPauseMs);
    }
  }

  /** Names of objects this load knows, not uncertain. */
  private known(objects: Map<string, Acked>, live: boolean): string[] {
    return [...objects]
      .filter(([name, acked]) => !this.uncertain.has(name) && (acked.value !== undefined) === live)
      .map(([name]) => name);
  }

  private async oneWrite(api: LoadApi): Promise<void> {
    const roll = this.rng.next();
    const liveMaps = this.known(this.configMaps, true);
    const livePods = this.known(this.pods, true);
    if (roll < 0.3 || liveMaps.length === 0) return this.send(api, "cm", `cm-${this.counter++}`, "create");
    if (roll < 0.55) return this.send(api, "cm", this.rng.pick(liveMaps), "update");
    if (roll < 0.7) return this.send(api, "cm", this.rng.pick(liveMaps), "delete");
    if (roll < 0.85 && livePods.length < this.maxPods) return this.send(api, "pod", `app-${this.counter++}`, "create");
    if (livePods.length > 0) return this.send(api, "pod", this.rng.pick(livePods), "delete");
  }

  /** Sends one write; records it when acknowledged, marks the object uncertain when unanswered. */
  private async send(
    api: LoadApi,
    kind: "cm" | "pod",
    name: string,
    verb: "create" | "update" | "delete",
  ): Promise<void> {
    const objects = kind === "cm" ? this.configMaps : this.pods;
    const value = verb === "delete" ? undefined : `${verb}-${this.counter++}`;
    // Marked before sending: if the server dies now, the object's state is unknown until checked.
    this.uncertain.add(name);
    let ok: boolean;
    try {
      ok = kind === "cm" ? await this.writeConfigMap(api, name, verb, value) : await this.writePod(api, name, verb);
    } catch {
      this.unanswered++;
      return;
    }
    if (!ok) {
      this.refused++;
      // A refusal changed nothing; a later read tells which state it is in, so leave it uncertain.
      return;
    }
    this.acknowledged++;
    objects.set(name, { value });
    this.uncertain.delete(name);
  }

  private async writeConfigMap(api: LoadApi, name: string, verb: string, value: string | undefined): Promise<boolean> {
    const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { value: value ?? "" } };
    if (verb === "create") return (await api.request("POST", `${namespacePath}/configmaps`, body)).status === 201;
    if (verb === "update")
      return (await api.request("PUT", `${namespacePath}/configmaps/${name}`, body)).status === 200;
    const status = (await api.request("DELETE", `${namespacePath}/configmaps/${name}`)).status;
    return status === 200 || status === 202;
  }

  private async writePod(api: LoadApi, name: string, verb: string): Promise<boolean> {
    if (verb === "delete") {
      for (const path of [`${namespacePath}/pods/${name}`, `${namespacePath}/persistentvolumeclaims/${name}`]) {
        const status = (await api.request("DELETE", path)).status;
        if (status !== 200 && status !== 202) return false;
      }
      return true;
    }
    for (const [path, body] of this.podObjects(name)) {
      if ((await api.request("POST", path, body)).status !== 201) return false;
    }
    return true;
  }

  private podObjects(name: string): [string, Json][] {
    const objects: [string, Json][] = [];
    const claimSpec: Json = { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } };
    if ("hostPath" in this.claims) {
      objects.push([
        "/api/v1/persistentvolumes",
        {
          apiVersion: "v1",
          kind: "PersistentVolume",
          metadata: { name: `pv-${name}` },
          spec: {
            capacity: { storage: "1Gi" },
            accessModes: ["ReadWriteOnce"],
            storageClassName: "manual",
            persistentVolumeReclaimPolicy: "Delete",
            hostPath: { path: `/srv/${name}`, type: "DirectoryOrCreate" },
          },
        },
      ]);
      Object.assign(claimSpec, { storageClassName: "manual", volumeName: `pv-${name}` });
    } else {
      Object.assign(claimSpec, { storageClassName: this.claims.storageClassName });
    }
    objects.push([
      `${namespacePath}/persistentvolumeclaims`,
      { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name }, spec: claimSpec },
    ]);
    objects.push([
      `${namespacePath}/pods`,
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        spec: {
          containers: [{ name: "main", image: "busybox", volumeMounts: [{ name: "d", mountPath: "/data" }] }],
          volumes: [{ name: "d", persistentVolumeClaim: { claimName: name } }],
        },
      },
    ]);
    return objects;
  }

  /** Every acknowledged write reads back; returns what does not, one line each. */
  async lostWrites(api: LoadApi): Promise<string[]> {
    const lost: string[] = [];
    for (const [name, acked] of this.configMaps) {
      if (this.uncertain.has(name)) continue;
      const response = await api.request("GET", `${namespacePath}/configmaps/${name}`);
      if (acked.value === undefined) {
        if (response.status !== 404)
          lost.push(`ConfigMap ${name}: delete acknowledged, but it reads back (${response.status})`);
        continue;
      }
      const data =
        response.status === 200 ? ((await response.json()) as { data?: { value?: string } }).data : undefined;
      if (data?.value !== acked.value) {
        lost.push(`ConfigMap ${name}: acknowledged ${acked.value}, reads back ${response.status} ${data?.value}`);
      }
    }
    for (const [name, acked] of this.pods) {
      if (this.uncertain.has(name) || acked.value === undefined) continue;
      for (const kind of ["pods", "persistentvolumeclaims"]) {
        const status = (await api.request("GET", `${namespacePath}/${kind}/${name}`)).status;
        if (status !== 200) lost.push(`${kind} ${name}: create acknowledged, reads back ${status}`);
      }
    }
    return lost;
  }

  /** Checked objects: acknowledged and not uncertain. */
  checkedCount(): number {
    return [...this.configMaps.keys(), ...this.pods.keys()].filter((name) => !this.uncertain.has(name)).length;
  }
}

interface PodJson {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { nodeName?: string; volumes?: { persistentVolumeClaim?: { claimName: string } }[] };
  status?: { phase?: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

interface AttachmentJson {
  metadata: { name: string };
  spec: { nodeName: string; source: { persistentVolumeName?: string } };
  status?: { attached?: boolean };
}

async function list<T>(api: LoadApi, path: string): Promise<T[]> {
  const response = await api.request("GET", path);
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}`);
  return ((await response.json()) as { items: T[] }).items;
}

/** What is wrong with the cluster now: pods not running, double attaches, leaked attachments. */
export async function convergenceProblems(api: LoadApi): Promise<string[]> {
  const problems: string[] = [];
  const pods = await list<PodJson>(api, `${namespacePath}/pods`);
  const claims = await list<{ metadata: { name: string }; spec: { volumeName?: string } }>(
    api,
    `${namespacePath}/persistentvolumeclaims`,
  );
  const attachments = await list<AttachmentJson>(api, "/apis/storage.k8s.io/v1/volumeattachments");
  const nodes = await list<{ metadata: { name: string }; status?: { volumesAttached?: { name: string }[] } }>(
    api,
    "/api/v1/nodes",
  );
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== "Running") {
      const where = pod.spec.nodeName === undefined ? "not scheduled" : `on ${pod.spec.nodeName}`;
      const why = (pod.status?.conditions ?? []).map((condition) =>
        `${condition.type}=${condition.status} ${condition.reason ?? ""} ${condition.message ?? ""}`.trim(),
      );
      problems.push(
        `pod ${pod.metadata.name} is ${pod.status?.phase ?? "without a phase"}, ${where} (${why.join(", ")})`,
      );
    }
  }
  const pvOfClaim = new Map(claims.map((claim) => [claim.metadata.name, claim.spec.volumeName]));
  const usedOnNode = new Set<string>();
  for (const pod of pods) {
    for (const volume of pod.spec.volumes ?? []) {
      const pv = volume.persistentVolumeClaim ? pvOfClaim.get(volume.persistentVolumeClaim.claimName) : undefined;
      if (pv !== undefined) usedOnNode.add(`${pv}@${pod.spec.nodeName}`);
    }
  }
  const attachedNodes = new Map<string, string[]>();
  for (const attachment of attachments) {
    const pv = attachment.spec.source.persistentVolumeName ?? "";
    if (attachment.status?.attached === true) {
      attachedNodes.set(pv, [...(attachedNodes.get(pv) ?? []), attachment.spec.nodeName]);
    }
    if (!usedOnNode.has(`${pv}@${attachment.spec.nodeName}`)) {
      problems.push(
        `VolumeAttachment ${attachment.metadata.name} of ${pv} on ${attachment.spec.nodeName}: no pod there uses it`,
      );
    }
  }
  for (const [pv, onNodes] of attachedNodes) {
    if (onNodes.length > 1) problems.push(`DOUBLE ATTACH: ${pv} attached to ${onNodes.join(", ")} (VolumeAttachments)`);
  }
  const statusNodes = new Map<string, string[]>();
  for (const node of nodes) {
    for (const attached of node.status?.volumesAttached ?? []) {
      statusNodes.set(attached.name, [...(statusNodes.get(attached.name) ?? []), node.metadata.name]);
    }
  }
  for (const [volume, onNodes] of statusNodes) {
    if (onNodes.length > 1) problems.push(`DOUBLE ATTACH: ${volume} attached to ${onNodes.join(", ")} (Node status)`);
  }
  return problems;
}

/** Waits until the cluster has converged; throws with what is still wrong. */
export async function waitForConvergence(api: LoadApi, timeoutMs: number): Promise<void> {
  let last: string[] = [];
  try {
    await waitFor(
      "the cluster to converge",
      async () => {
        last = await convergenceProblems(api);
        if (last.some((problem) => problem.startsWith("DOUBLE ATTACH"))) throw new Error(last.join("; "));
        return last.length === 0 || undefined;
      },
      timeoutMs,
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; still wrong: ${last.join("; ")}`);
  }
}
