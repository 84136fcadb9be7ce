/**
 * Every number and fixed word of the bundled CSI drivers, in one place, each with its unit in its
 * name and the reason for its value.
 */

/** The vendor_version every bundled driver reports in GetPluginInfo. */
export const bundledDriverVersion = "0.1.0";

/** What a CreateVolume without a capacity range gets (csi-driver-host-path's default is 1 GiB as well). */
export const defaultVolumeCapacityBytes = 1024 ** 3;

/** The largest volume a bundled driver creates unless told otherwise (a sparse file or a quota-less directory). */
export const defaultMaxVolumeCapacityBytes = 1024 ** 4;

/** CSI's limit on every string field unless a field says otherwise (spec "Size limits"). */
export const maxCsiStringBytes = 128;

/** How many hex digits of sha256(name) a volume id carries: 80 bits, no collision in any cluster's lifetime. */
export const volumeIdHashHexDigits = 20;

/** ListVolumes page size when the caller sets no max_entries; bounds one response. */
export const listVolumesDefaultPageSize = 500;

/** The file, in a driver's state directory, that holds its volume catalog across restarts. */
export const catalogFileName = "volumes.json";

/**
 * Bound on the entries a usage or removal walk visits below one volume: a volume with more is
 * reported as such instead of tying up the node plugin.
 */
export const volumeTreeEntriesMax = 1_000_000;

/** Permission bits of directories a driver creates for staging and publishing (kubelet uses 0750 too). */
export const mountDirMode = 0o750;

/** Permission bits of a hostpath volume directory: pods of any uid may write, as in csi-driver-host-path. */
export const volumeDirMode = 0o777;

/** Permission bits of the file a block volume is published onto (bind-mounted over by the device). */
export const blockTargetFileMode = 0o660;

/** How often a node plugin looks for the mount a FUSE daemon it started has made. */
export const fuseMountPollPeriodMs = 50;

/** How long a FUSE daemon may take to mount before the node plugin gives up on it (and kills it). */
export const fuseMountTimeoutMs = 10_000;

/** `losetup` output for the device it attached: `/dev/loop3`. */
export const loopDevicePathPattern = /^\/dev\/loop\d+$/;

/** The bundled drivers' names, as CSIDriver objects and PVs' `spec.csi.driver` name them. */
export const hostpathDriverName = "hostpath.csi.kvol.io";
export const fuseDriverName = "fuse.csi.kvol.io";
export const mockDriverName = "mock.csi.kvol.io";
export const diskDriverName = "disk.csi.kvol.io";

/** The topology segment of a node-local hostpath volume: the node holding its data. */
export const hostpathTopologyKey = "topology.hostpath.csi.kvol.io/node";

/** Where a driver keeps its volumes and catalog on a node unless told otherwise. */
export const defaultHostpathStateDir = "/var/lib/kvol/csi-hostpath";
export const defaultFuseStateDir = "/var/lib/kvol/csi-fuse";
/** Where disk.csi.kvol.io keeps its disks (sparse files and their records) on a real machine. */
export const defaultDiskStateDir = "/var/lib/kvol/csi-disk";

/** Volume ids of each bundled driver start with these. */
export const hostpathVolumeIdPrefix = "hostpath";
export const fuseVolumeIdPrefix = "fuse";
export const diskVolumeIdPrefix = "disk";
/** Snapshot ids are `<prefix>-<hash of CreateSnapshot's name>`, like volume ids. */
export const diskSnapshotIdPrefix = "disksnap";
export const hostpathSnapshotIdPrefix = "hostpathsnap";

/** The topology segment of a disk.csi.kvol.io volume and node: the zone a disk can be attached in. */
export const diskTopologyKey = "topology.disk.csi.kvol.io/zone";

/**
 * The zone a node without one reports (its disks are then created without a zone and attach to
 * any node): a driver with VOLUME_ACCESSIBILITY_CONSTRAINTS must give every node a topology, or the
 * external-provisioner finds no topology key on the node a pod was scheduled to.
 */
export const diskDefaultZone = "default";

/**
 * NodeGetInfo's max_volumes_per_node of disk.csi.kvol.io: the attach limit of a small cloud VM
 * (an AWS Nitro instance's 39 EBS volumes less its root disk would be 38; GCE allows 127). A
 * small number lets the scheduler's attach limit be met in a demo.
 */
export const diskMaxVolumesPerNode = 16;

/** The StorageClass parameter that makes disk.csi.kvol.io create multi-attach disks (ReadWriteMany). */
export const diskMultiAttachParameter = "multiAttach";

/** The publish_context key holding the device path of an attached disk (what cloud drivers pass on). */
export const diskDevicePathContextKey = "devicePath";
