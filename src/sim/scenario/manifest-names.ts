/**
 * The names an applied manifest declares or uses, for the load-time name checks
 * (`scenario-names.ts`): a StorageClass declares its name and uses its provisioner when that is a
 * bundled CSI driver; a claim (or a StatefulSet's claim template) uses its `storageClassName`; a pod
 * with `spec.nodeName` uses that node; a PV uses its CSI driver when that is a bundled one.
 */
import type { Manifest } from "../../cmd/manifests.ts";
import type { FieldPath, YamlSource } from "./yaml-source.ts";

/** The bundled drivers are named `<x>.csi.kvol.io`; other provisioners (in-tree, external) are not checked. */
const bundledDriverSuffix = ".csi.kvol.io";

interface ClaimSpecLike {
  readonly storageClassName?: string | null;
}

export function recordManifestNames(
  source: YamlSource,
  path: FieldPath,
  manifests: readonly Manifest[],
  atMs: number,
): void {
  const { names } = source;
  manifests.forEach(({ kind, object }, index) => {
    const where = `manifest ${index + 1} (${kind} ${object.metadata?.name ?? ""})`;
    const use = (nameKind: "node" | "driver" | "storageClass", name: string | null | undefined) => {
      if (typeof name !== "string" || name === "") return;
      names.use({ kind: nameKind, name, path: [...path, where], atMs });
    };
    const record = object as Record<string, unknown> & { spec?: Record<string, unknown> };
    switch (kind) {
      case "StorageClass": {
        names.declare("storageClass", object.metadata?.name ?? "");
        const provisioner = record.provisioner;
        if (typeof provisioner === "string" && provisioner.endsWith(bundledDriverSuffix)) use("driver", provisioner);
        break;
      }
      case "PersistentVolumeClaim":
        use("storageClass", (record.spec as ClaimSpecLike | undefined)?.storageClassName);
        break;
      case "StatefulSet": {
        const templates = (record.spec?.volumeClaimTemplates ?? []) as ReadonlyArray<{ spec?: ClaimSpecLike }>;
        for (const template of templates) use("storageClass", template.spec?.storageClassName);
        break;
      }
      case "Pod":
        use("node", record.spec?.nodeName as string | undefined);
        break;
      case "PersistentVolume": {
        const driver = (record.spec?.csi as { driver?: string } | undefined)?.driver;
        if (driver?.endsWith(bundledDriverSuffix)) use("driver", driver);
        break;
      }
      default:
        break;
    }
  });
}
