/** Objects the benchmarks store: a pod the size of a real StatefulSet pod with one claim. */
import type { Pod } from "../src/api/objects.ts";

export function benchPod(index: number): Pod {
  const name = `web-${index}`;
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "default",
      labels: { app: "web", "statefulset.kubernetes.io/pod-name": name },
      annotations: { "kvol.io/bench": "true" },
    },
    spec: {
      nodeName: `node-${index % 1000}`,
      containers: [
        {
          name: "web",
          image: "registry.k8s.io/nginx-slim:0.8",
          ports: [{ containerPort: 80, name: "web" }],
          volumeMounts: [{ name: "www", mountPath: "/usr/share/nginx/html" }],
        },
      ],
      volumes: [{ name: "www", persistentVolumeClaim: { claimName: `www-${name}` } }],
      terminationGracePeriodSeconds: 30,
    },
  };
}
