import assert from "node:assert/strict";
import { posix } from "node:path";
import { describe, it } from "node:test";
import {
  csiBlockGlobalMapPath,
  csiBlockPublishPath,
  csiBlockStagingPath,
  csiBlockVolumeDataPath,
  csiDriverSocketPath,
  csiLegacyStagingPath,
  csiPublishTargetPath,
  csiRegistrationSocketPath,
  csiStagingPath,
  csiVolumeDataPath,
  defaultKubeletRootDir,
  escapeQualifiedName,
  globalMapPodDevicePath,
  pluginDir,
  pluginGlobalMapPath,
  pluginGlobalMountDir,
  podDir,
  podPluginDir,
  podsDir,
  podVolumeDevicePath,
  podVolumeDir,
  podVolumeSubpathDir,
  sha256Hex,
  unescapeQualifiedName,
} from "./paths.ts";

const root = defaultKubeletRootDir;
const uid = "88364352-7a46-4397-8743-dcff5cf5068d";

describe("kubelet paths", () => {
  it("escapes plugin names for pod directories and back", () => {
    assert.equal(escapeQualifiedName("kubernetes.io/nfs"), "kubernetes.io~nfs");
    assert.equal(unescapeQualifiedName("kubernetes.io~empty-dir"), "kubernetes.io/empty-dir");
  });

  it("puts a pod's NFS volume where seed 001 lists it", () => {
    assert.equal(
      podVolumeDir(root, uid, "kubernetes.io/nfs", "xx-pv"),
      "/var/lib/kubelet/pods/88364352-7a46-4397-8743-dcff5cf5068d/volumes/kubernetes.io~nfs/xx-pv",
    );
  });

  it("keeps emptyDir's ready marker under the pod's plugin directory", () => {
    assert.equal(
      `${podPluginDir(root, uid, "kubernetes.io/empty-dir")}/cache/ready`,
      `/var/lib/kubelet/pods/${uid}/plugins/kubernetes.io~empty-dir/cache/ready`,
    );
  });

  it("numbers subPath bind mounts by container and mount index", () => {
    assert.equal(
      podVolumeSubpathDir(root, uid, "data", "app", 2),
      `/var/lib/kubelet/pods/${uid}/volume-subpaths/data/app/2`,
    );
  });

  it("links a pod's block device under volumeDevices with the escaped plugin name", () => {
    assert.equal(
      podVolumeDevicePath(root, uid, "kubernetes.io/csi", "pvc-1"),
      `/var/lib/kubelet/pods/${uid}/volumeDevices/kubernetes.io~csi/pvc-1`,
    );
  });

  it("mounts in-tree devices once per node under plugins/<plugin>/mounts", () => {
    assert.equal(
      pluginGlobalMountDir(root, "kubernetes.io/rbd", "sock_shop-image-user-pv"),
      "/var/lib/kubelet/plugins/kubernetes.io/rbd/mounts/sock_shop-image-user-pv",
    );
    const globalMap = pluginGlobalMapPath(root, "kubernetes.io/rbd", "rbd-image-img");
    assert.equal(globalMap, "/var/lib/kubelet/plugins/kubernetes.io/rbd/volumeDevices/rbd-image-img");
    assert.equal(globalMapPodDevicePath(globalMap, uid), `${globalMap}/${uid}`);
  });

  it("stages CSI volumes under the SHA-256 of the volume handle", () => {
    assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(
      csiStagingPath(root, "hostpath.csi.k8s.io", "abc"),
      "/var/lib/kubelet/plugins/kubernetes.io/csi/hostpath.csi.k8s.io/ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad/globalmount",
    );
    assert.equal(
      csiLegacyStagingPath(root, "pvc-1"),
      "/var/lib/kubelet/plugins/kubernetes.io/csi/pv/pvc-1/globalmount",
    );
  });

  it("publishes CSI volumes into <spec>/mount with vol_data.json beside it", () => {
    const target = csiPublishTargetPath(root, uid, "pvc-1");
    assert.equal(target, `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/pvc-1/mount`);
    assert.equal(
      csiVolumeDataPath(target),
      `/var/lib/kubelet/pods/${uid}/volumes/kubernetes.io~csi/pvc-1/vol_data.json`,
    );
  });

  it("lays out CSI block volumes as staging, publish, dev and data", () => {
    const base = "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices";
    assert.equal(csiBlockStagingPath(root, "pvc-1"), `${base}/staging/pvc-1`);
    assert.equal(csiBlockPublishPath(root, "pvc-1", uid), `${base}/publish/pvc-1/${uid}`);
    assert.equal(csiBlockGlobalMapPath(root, "pvc-1"), `${base}/pvc-1/dev`);
    assert.equal(csiBlockVolumeDataPath(root, "pvc-1"), `${base}/pvc-1/data/vol_data.json`);
  });

  it("finds CSI drivers through the registration directory", () => {
    assert.equal(
      csiRegistrationSocketPath(root, "hostpath.csi.k8s.io"),
      "/var/lib/kubelet/plugins_registry/hostpath.csi.k8s.io-reg.sock",
    );
    assert.equal(
      csiDriverSocketPath(root, "hostpath.csi.k8s.io"),
      "/var/lib/kubelet/plugins/hostpath.csi.k8s.io/csi.sock",
    );
  });

  it("follows a non-default root directory", () => {
    assert.equal(
      podVolumeDir("/data/kubelet", "u", "kubernetes.io/secret", "s"),
      "/data/kubelet/pods/u/volumes/kubernetes.io~secret/s",
    );
  });

  it("writes every path exactly as path.join would, for unusual roots and names too", () => {
    const roots = ["/var/lib/kubelet", "/var/lib/kubelet/", "/", "", "kubelet", "/a//b/./c/../kubelet", "/."];
    const names = ["pvc-1", "", ".", "..", "a/b", "../x", "x/", "/abs", ".hidden", "..x"];
    const j = posix.join;
    for (const r of roots) {
      for (const n of names) {
        const at = `root ${JSON.stringify(r)}, name ${JSON.stringify(n)}`;
        assert.equal(podsDir(r), j(r, "pods"), at);
        assert.equal(podDir(r, n), j(r, "pods", n), at);
        assert.equal(
          podVolumeDir(r, n, "kubernetes.io/nfs", n),
          j(r, "pods", n, "volumes", "kubernetes.io~nfs", n),
          at,
        );
        assert.equal(podPluginDir(r, uid, n), j(r, "pods", uid, "plugins", escapeQualifiedName(n)), at);
        assert.equal(podVolumeSubpathDir(r, uid, n, n, 0), j(r, "pods", uid, "volume-subpaths", n, n, "0"), at);
        assert.equal(
          podVolumeDevicePath(r, uid, n, n),
          j(r, "pods", uid, "volumeDevices", escapeQualifiedName(n), n),
          at,
        );
        assert.equal(pluginDir(r, n), j(r, "plugins", n), at);
        assert.equal(pluginGlobalMountDir(r, "kubernetes.io/rbd", n), j(r, "plugins/kubernetes.io/rbd/mounts", n), at);
        assert.equal(globalMapPodDevicePath(r, n), j(r, n), at);
        assert.equal(csiLegacyStagingPath(r, n), j(r, "plugins/kubernetes.io/csi/pv", n, "globalmount"), at);
        assert.equal(csiPublishTargetPath(r, n, n), j(r, "pods", n, "volumes/kubernetes.io~csi", n, "mount"), at);
        assert.equal(csiVolumeDataPath(j(r, n)), j(posix.dirname(j(r, n)), "vol_data.json"), at);
        assert.equal(csiBlockPublishPath(r, n, n), j(r, "plugins/kubernetes.io/csi/volumeDevices/publish", n, n), at);
        assert.equal(csiRegistrationSocketPath(r, n), j(r, "plugins_registry", `${n}-reg.sock`), at);
        assert.equal(csiDriverSocketPath(r, n), j(r, "plugins", n, "csi.sock"), at);
      }
    }
  });
});
