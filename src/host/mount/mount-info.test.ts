import assert from "node:assert/strict";
import { test } from "node:test";
import { escapeMountInfoField, formatMountInfo, parseMountInfo } from "./mount-info.ts";

const sample = [
  "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro",
  "36 22 8:1 /var/lib/kubelet/pods/p1/volumes/kubernetes.io~empty-dir/cache /mnt/pod\\040data rw,relatime shared:1 master:3 - ext4 /dev/sda1 rw",
  "41 22 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
  "",
].join("\n");

test("parses every field of a mountinfo line, including optional fields", () => {
  const [root, bind, cgroup] = parseMountInfo(sample);
  assert.deepEqual(root, {
    id: 22,
    parentId: 1,
    majorMinor: "8:1",
    root: "/",
    mountPoint: "/",
    options: ["rw", "relatime"],
    fsType: "ext4",
    source: "/dev/sda1",
    superOptions: ["rw", "errors=remount-ro"],
  });
  assert.equal(bind?.root, "/var/lib/kubelet/pods/p1/volumes/kubernetes.io~empty-dir/cache");
  assert.equal(cgroup?.fsType, "cgroup2");
  assert.equal(cgroup?.mountPoint, "/sys/fs/cgroup/unified");
});

test("decodes the kernel's octal escapes in paths", () => {
  const mounts = parseMountInfo(sample);
  assert.equal(mounts[1]?.mountPoint, "/mnt/pod data");
  const [tabbed] = parseMountInfo("50 22 0:40 / /a\\011b\\134c\\012d rw - tmpfs tmpfs rw\n");
  assert.equal(tabbed?.mountPoint, "/a\tb\\c\nd");
});

test("formatting and parsing round-trip paths with spaces and backslashes", () => {
  const mounts = parseMountInfo(sample);
  const weird = {
    ...mounts[0],
    mountPoint: "/var/lib/kubelet/pods/x/vol with space\\and\\slash",
  } as (typeof mounts)[0];
  assert.deepEqual(parseMountInfo(formatMountInfo([weird])), [weird]);
  assert.equal(escapeMountInfoField("/a b"), "/a\\040b");
});

test("a malformed line is rejected with its line number", () => {
  assert.throws(() => parseMountInfo("22 1 8:1 / / rw ext4 /dev/sda1 rw\n"), /mountinfo line 1 has no ' - ' separator/);
  assert.throws(
    () => parseMountInfo("x 1 8:1 / / rw - ext4 /dev/sda1 rw"),
    /line 1 has a mount id that is not a number/,
  );
  assert.throws(
    () => parseMountInfo(`${sample}22 1 8:1 / / rw - ext4\n`),
    /line 4 has 1 fields after ' - ', expected 3/,
  );
});
