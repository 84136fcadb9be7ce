import { it } from "node:test";
import { Cluster } from "./cluster.ts";

function ms(name: string) { const s = name.slice(name.lastIndexOf(".") + 1); return Number(BigInt(`0x${s}`) / 1000000n) - Date.UTC(2026,0,1); }

it("scratch", async () => {
  const cluster = await Cluster.start({ seed: 3 });
  await cluster.addNode("node-a", { zone: "zone-1" });
  await cluster.addNode("node-b", { zone: "zone-1" });
  const dep = (extra: string) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: db }
spec:
  replicas: 1
  strategy: { type: RollingUpdate, rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }
  selector: { matchLabels: { app: db } }
  template:
    metadata: { labels: { app: db } }
    spec:
      ${extra}
      containers:
        - name: db
          image: postgres:16
          volumeMounts: [{ name: data, mountPath: /var/lib/postgresql }]
      volumes: [{ name: data, persistentVolumeClaim: { claimName: data } }]
`;
  await cluster.apply(`
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: { name: standard }
provisioner: kvol.io/sim-disk
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: { name: data }
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: standard
  resources: { requests: { storage: 1Gi } }
---
${dep("nodeSelector: { kubernetes.io/hostname: node-a }")}`);
  await cluster.runUntil(async () => (await cluster.list("Pod")).some((p) => p.status?.phase === "Running"));
  const t0 = cluster.clock.now();
  console.log("t0", t0);
  await cluster.apply(dep("nodeSelector: { kubernetes.io/hostname: node-b }"));
  for (let i = 0; i < 600; i++) {
    await cluster.runFor(1000);
    const pods = await cluster.list("Pod");
    if (pods.length === 1 && pods[0]?.spec?.nodeSelector?.["kubernetes.io/hostname"] === "node-b" && pods[0].status?.phase === "Running") break;
  }
  for (const e of await cluster.events()) console.log(ms(e.metadata?.name ?? ""), e.involvedObject.kind, e.involvedObject.name, e.reason, JSON.stringify(e.message), e.count);
  for (const n of ["node-a", "node-b"]) { const node = await cluster.get("Node", "", n);
  console.log(n, JSON.stringify(node.status?.volumesAttached), JSON.stringify(node.status?.volumesInUse)); }
  console.log("end", cluster.clock.now());
  await cluster.stop();
});
