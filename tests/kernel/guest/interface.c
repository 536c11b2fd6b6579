// SPDX-License-Identifier: GPL-2.0
/*
 * SchedTune guest tests: the sysctl, the schedtune cgroup controller, the
 * debugfs file and the tracepoint formats.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stune.h"
#include "tests.h"

struct bad_write {
	const char *val;
	size_t len;
	const char *what;
};

static const struct bad_write bad_writes[] = {
	{ "101", 3, "101" },
	{ "-1", 2, "-1" },
	{ "abc", 3, "abc" },
	{ "\n", 1, "an empty line" },
	{ "1000", 4, "1000" },
	{ "4294967346", 10, "2^32 + 50" },
	{ "-4294967246", 11, "-(2^32) + 50" },
	{ "50abc", 5, "50abc" },
};

/* Every bad write fails with EINVAL and keeps the value at 42. */
static int check_bad_writes(const char *path)
{
	long v;
	size_t i;
	int err;

	err = write_file(path, "42");
	if (err)
		return fail("%s: writing 42: %s", path, strerror(-err));
	for (i = 0; i < sizeof(bad_writes) / sizeof(bad_writes[0]); i++) {
		err = write_file_len(path, bad_writes[i].val, bad_writes[i].len);
		if (err != -EINVAL)
			return fail("%s: writing %s gave %s, not EINVAL", path,
				    bad_writes[i].what,
				    err ? strerror(-err) : "success");
		err = read_long(path, &v);
		if (err || v != 42)
			return fail("%s: %ld after writing %s, not 42", path,
				    v, bad_writes[i].what);
	}
	/* A zero-length write may succeed but must not change anything. */
	err = write_file_len(path, "", 0);
	if (err && err != -EINVAL)
		return fail("%s: empty write gave %s", path, strerror(-err));
	if (read_long(path, &v) || v != 42)
		return fail("%s: %ld after an empty write, not 42", path, v);
	return write_file(path, "0") ? fail("%s: cannot write 0", path) : 0;
}

static int check_range(const char *path)
{
	static const int vals[] = { 0, 1, 10, 50, 99, 100, 7, 0 };
	char buf[16];
	size_t i;
	long v;
	int err;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		snprintf(buf, sizeof(buf), "%d\n", vals[i]);
		err = write_file(path, buf);
		if (err)
			return fail("%s: writing %d: %s", path, vals[i],
				    strerror(-err));
		err = read_long(path, &v);
		if (err)
			return fail("%s: read back: %s", path, strerror(-err));
		if (v != vals[i])
			return fail("%s: wrote %d, read %ld", path, vals[i], v);
	}
	return 0;
}

int test_sysctl_default(void)
{
	long v;
	int err;

	err = read_long(STUNE_SYSCTL, &v);
	if (err)
		return fail("read %s: %s", STUNE_SYSCTL, strerror(-err));
	if (v != 0)
		return fail("%s is %ld at boot, expected 0", STUNE_SYSCTL, v);
	return 0;
}

int test_sysctl_range(void)
{
	return check_range(STUNE_SYSCTL);
}

int test_sysctl_bad_writes(void)
{
	return check_bad_writes(STUNE_SYSCTL);
}

int test_cgroup_listed(void)
{
	char buf[4096], *p;
	int hier, num, enabled;

	if (read_file("/proc/cgroups", buf, sizeof(buf)) <= 0)
		return fail("cannot read /proc/cgroups");
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		if (strncmp(p, "schedtune\t", 10))
			continue;
		if (sscanf(p + 10, "%d %d %d", &hier, &num, &enabled) != 3)
			return fail("bad /proc/cgroups line '%s'", p);
		if (!enabled)
			return fail("schedtune controller is disabled");
		return 0;
	}
	return fail("no schedtune line in /proc/cgroups");
}

int test_cgroup_mount(void)
{
	long v, s;
	int err;

	err = stune_mount();
	if (err)
		return fail("mount -t cgroup -o schedtune stune %s: %s",
			    STUNE_MNT, strerror(-err));
	if (!path_exists(STUNE_MNT "/schedtune.boost"))
		return fail("no schedtune.boost in the root group");
	err = group_get_boost("/", &v);
	if (err)
		return fail("read root schedtune.boost: %s", strerror(-err));
	if (read_long(STUNE_SYSCTL, &s))
		return fail("cannot read %s", STUNE_SYSCTL);
	if (v != s)
		return fail("root boost %ld differs from the sysctl %ld", v, s);
	return 0;
}

int test_root_is_sysctl(void)
{
	static const int vals[] = { 30, 0, 100, 1, 55 };
	size_t i;
	long a, b;
	char buf[16];

	if (stune_reset())
		return -1;
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		snprintf(buf, sizeof(buf), "%d", vals[i]);
		if (i % 2 ? group_set_boost("/", vals[i]) :
			    write_file(STUNE_SYSCTL, buf))
			return fail("cannot write %d", vals[i]);
		if (read_long(STUNE_SYSCTL, &a) || group_get_boost("/", &b))
			return fail("cannot read back");
		if (a != vals[i] || b != vals[i])
			return fail("wrote %d to the %s: sysctl %ld, root %ld",
				    vals[i], i % 2 ? "root group" : "sysctl",
				    a, b);
	}
	/* Bad writes to one do not leak into the other. */
	write_file(STUNE_SYSCTL, "20");
	write_file(STUNE_SYSCTL, "101");
	group_set_boost("/", 150);
	if (read_long(STUNE_SYSCTL, &a) || group_get_boost("/", &b) ||
	    a != 20 || b != 20)
		return fail("after bad writes: sysctl %ld, root %ld, not 20",
			    a, b);
	return stune_reset();
}

int test_cgroup_boost_range(void)
{
	long v;
	int err;

	if (stune_reset())
		return -1;
	if (mkdir(group_dir("range"), 0755))
		return fail("mkdir: %s", strerror(errno));
	err = group_get_boost("range", &v);
	if (err)
		return fail("read a new group's boost: %s", strerror(-err));
	if (v != 0)
		return fail("a new group has boost %ld, expected 0", v);
	if (check_range(STUNE_MNT "/range/schedtune.boost"))
		return -1;
	if (check_range(STUNE_MNT "/schedtune.boost"))
		return -1;
	/* A child's boost is its own: root and sysctl do not follow. */
	group_set_boost("range", 77);
	if (group_get_boost("/", &v) || v != 0)
		return fail("writing a child changed root to %ld", v);
	return stune_reset();
}

int test_cgroup_bad_writes(void)
{
	if (stune_reset())
		return -1;
	if (mkdir(group_dir("bad"), 0755))
		return fail("mkdir: %s", strerror(errno));
	if (check_bad_writes(STUNE_MNT "/bad/schedtune.boost"))
		return -1;
	if (check_bad_writes(STUNE_MNT "/schedtune.boost"))
		return -1;
	return stune_reset();
}

/* Each of @bad fails with EINVAL and leaves @path at @keep. */
static int expect_rejected(const char *path, const char *const *bad,
			   size_t n, long keep)
{
	size_t i;
	long val;
	int err;

	for (i = 0; i < n; i++) {
		err = write_file_len(path, bad[i], strlen(bad[i]));
		if (err != -EINVAL)
			return fail("%s: writing %s gave %s, not EINVAL", path,
				    bad[i], err ? strerror(-err) : "success");
		if (read_long(path, &val) || val != keep)
			return fail("%s: %ld after writing %s, not %ld", path,
				    val, bad[i], keep);
	}
	return 0;
}

/*
 * schedtune.hold_us: on child groups only, 0 by default, 0..1000000;
 * anything else fails with EINVAL and keeps the value in force.
 */
int test_cgroup_hold_range(void)
{
	static const char *const good[] = { "0", "1", "50000", "1000000\n", "7" };
	static const char *const bad[] = {
		"1000001", "-1", "abc", "\n", "4294967296", "50abc",
	};
	struct stune_view v;
	const char *path = STUNE_MNT "/hold/schedtune.hold_us";
	size_t i;
	long val;
	int err;

	if (stune_reset())
		return -1;
	if (path_exists(STUNE_MNT "/schedtune.hold_us"))
		return fail("root has a schedtune.hold_us");
	if (mkdir(group_dir("hold"), 0755))
		return fail("mkdir: %s", strerror(errno));
	err = read_long(path, &val);
	if (err || val != 0)
		return fail("a new group's hold_us: %ld (%s), expected 0", val,
			    strerror(-err));
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		err = write_file(path, good[i]);
		if (err)
			return fail("writing %s: %s", good[i], strerror(-err));
		if (read_long(path, &val) || val != atol(good[i]))
			return fail("wrote %s, read %ld", good[i], val);
	}
	if (expect_rejected(path, bad, sizeof(bad) / sizeof(bad[0]), 7))
		return -1;
	/* Beyond u64 the cgroup core's parser says ERANGE. */
	err = write_file(path, "18446744073709551616");
	if (err != -ERANGE && err != -EINVAL)
		return fail("writing 2^64 gave %s", err ? strerror(-err) : "success");
	if (read_long(path, &val) || val != 7)
		return fail("%ld after writing 2^64, not 7", val);
	if (stune_view_read(&v))
		return -1;
	if (!stune_view_group(&v, "hold") ||
	    stune_view_group(&v, "hold")->hold_us != 7)
		return fail("debugfs does not show hold_us=7 for the group");
	return stune_reset();
}

/*
 * schedtune.prefer_fit: on child groups only, 1 by default, 0 or 1;
 * anything else fails with EINVAL and keeps the value in force.
 */
int test_cgroup_prefer_fit_range(void)
{
	static const char *const bad[] = { "2", "-1", "abc", "\n", "1x" };
	const char *path = STUNE_MNT "/fit/schedtune.prefer_fit";
	long val;
	int err;

	if (stune_reset())
		return -1;
	if (path_exists(STUNE_MNT "/schedtune.prefer_fit"))
		return fail("root has a schedtune.prefer_fit");
	if (mkdir(group_dir("fit"), 0755))
		return fail("mkdir: %s", strerror(errno));
	err = read_long(path, &val);
	if (err)
		return fail("read %s: %s", path, strerror(-err));
	if (val != 1)
		return fail("a new group's prefer_fit is %ld, expected 1", val);
	if (write_file(path, "0") || read_long(path, &val) || val != 0)
		return fail("prefer_fit 0 did not stick");
	if (expect_rejected(path, bad, sizeof(bad) / sizeof(bad[0]), 0))
		return -1;
	if (write_file(path, "1\n") || read_long(path, &val) || val != 1)
		return fail("prefer_fit 1 did not stick");
	return stune_reset();
}

int test_cgroup_no_grandchild(void)
{
	if (stune_reset())
		return -1;
	if (mkdir(group_dir("parent"), 0755))
		return fail("mkdir parent: %s", strerror(errno));
	if (!mkdir(STUNE_MNT "/parent/child", 0755))
		return fail("mkdir of a grandchild succeeded");
	if (errno != EINVAL)
		return fail("mkdir of a grandchild: %s, not EINVAL",
			    strerror(errno));
	if (path_exists(STUNE_MNT "/parent/child"))
		return fail("grandchild directory exists after the failure");
	return stune_reset();
}

/*
 * mkdir of a group; a slot freed by an rmdir just before may take a
 * moment to be released (the css is freed after an RCU grace period), so
 * ENOSPC is retried for up to two seconds.
 */
/* mkdir a group; groups that stune_reset() removed left their slots free. */
static int mkdir_group(const char *name)
{
	return mkdir(group_dir(name), 0755) ? -errno : 0;
}

int test_cgroup_group_limit(void)
{
	char name[32];
	struct stune_view v;
	long b;
	int i, err;

	if (stune_reset())
		return -1;
	for (i = 1; i < STUNE_MAX_GROUPS; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		err = mkdir_group(name);
		if (err)
			return fail("mkdir of child %d of %d: %s", i,
				    STUNE_MAX_GROUPS - 1, strerror(-err));
		if (group_set_boost(name, i))
			return fail("cannot set boost of child %d", i);
	}
	if (!mkdir(group_dir("g16"), 0755))
		return fail("16th child (17th group) was created");
	if (errno != ENOSPC)
		return fail("16th child: %s, not ENOSPC", strerror(errno));
	if (stune_view_read(&v))
		return -1;
	if (v.nr_groups != STUNE_MAX_GROUPS)
		return fail("debugfs lists %d groups, expected %d",
			    v.nr_groups, STUNE_MAX_GROUPS);
	/* The slot is free when rmdir returns: no retry here. */
	if (rmdir(group_dir("g7")))
		return fail("rmdir g7: %s", strerror(errno));
	if (mkdir(group_dir("g7b"), 0755))
		return fail("mkdir right after rmdir with the table full: %s",
			    strerror(errno));
	if (group_get_boost("g7b", &b))
		return fail("the reused slot has no schedtune.boost");
	if (b != 0)
		return fail("the reused slot starts at boost %ld, not 0", b);
	if (!mkdir(group_dir("g17"), 0755) || errno != ENOSPC)
		return fail("limit not enforced after slot reuse");
	return stune_reset();
}

int test_debugfs_format(void)
{
	struct stune_view v;
	const struct stune_group_view *root, *g;
	struct stat st;
	int cpu, fd, n;

	if (stune_reset())
		return -1;
	if (stat(STUNE_DEBUGFS, &st))
		return fail("%s: %s", STUNE_DEBUGFS, strerror(errno));
	if (st.st_mode & 0222)
		return fail("%s is writable (mode %o)", STUNE_DEBUGFS,
			    st.st_mode & 07777);
	fd = open(STUNE_DEBUGFS, O_WRONLY);
	if (fd >= 0) {
		n = write(fd, "1", 1);
		close(fd);
		if (n >= 0)
			return fail("writing %s succeeded", STUNE_DEBUGFS);
	}
	if (group_make("dbg", 33))
		return fail("cannot make group dbg");
	if (stune_view_read(&v))
		return -1;
	root = stune_view_group(&v, "/");
	if (!root)
		return fail("no group line with name=/");
	if (root->idx != 0 || root->boost != 0)
		return fail("root line: idx=%d boost=%d", root->idx,
			    root->boost);
	for (cpu = 0; cpu < v.nr_cpus; cpu++) {
		if (root->tasks[cpu])
			return fail("root count on cpu%d is %d, not 0", cpu,
				    root->tasks[cpu]);
		if (v.cpu_boost[cpu])
			return fail("cpu%d boost=%d with nothing boosted", cpu,
				    v.cpu_boost[cpu]);
	}
	g = stune_view_group(&v, "dbg");
	if (!g)
		return fail("group dbg missing from debugfs");
	if (g->boost != 33 || g->idx <= 0 || g->idx >= STUNE_MAX_GROUPS)
		return fail("group dbg: idx=%d boost=%d", g->idx, g->boost);
	if (v.nr_groups != 2)
		return fail("%d group lines, expected 2", v.nr_groups);
	/* Root boost shows in every CPU line. */
	group_set_boost("/", 12);
	if (stune_view_read(&v))
		return -1;
	for (cpu = 0; cpu < v.nr_cpus; cpu++)
		if (v.cpu_boost[cpu] != 12)
			return fail("root boost 12 but cpu%d boost=%d", cpu,
				    v.cpu_boost[cpu]);
	if (stune_view_group(&v, "/")->boost != 12)
		return fail("root line does not show boost 12");
	return stune_reset();
}

static int check_format(const char *event, const char *const *fields)
{
	char path[256], buf[4096], want[64];

	snprintf(path, sizeof(path), TRACEFS "/events/stune_test/%s/format",
		 event);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return fail("cannot read %s", path);
	for (; *fields; fields++) {
		snprintf(want, sizeof(want), " %s;", *fields);
		if (!strstr(buf, want))
			return fail("%s has no field %s", event, *fields);
	}
	return 0;
}

/*
 * SchedTune's tracepoints are bare: tracefs has no schedtune events (no
 * format becomes an ABI), and the test module, whose insmod fails unless
 * the kernel exports all four, re-emits them as events/stune_test/.
 */
int test_tracepoints_bare(void)
{
	static const char *const config[] = { "idx", "boost", NULL };
	static const char *const cpu[] = { "cpu", "boost", NULL };
	static const char *const tasks[] = { "cpu", "idx", "tasks", "boost",
					     "max_boost", NULL };
	static const char *const util[] = { "cpu", "util", "cap", "boost",
					    "margin", NULL };
	struct stat st;

	if (stat(TRACEFS "/events/sched", &st))
		return fail("no " TRACEFS "/events/sched: %s", strerror(errno));
	if (!stat(TRACEFS "/events/schedtune", &st))
		return fail(TRACEFS "/events/schedtune exists: not bare");
	if (check_format("sched_tune_config", config) ||
	    check_format("sched_tune_cpu_boost", cpu) ||
	    check_format("sched_tune_tasks_update", tasks) ||
	    check_format("sched_tune_boost_util", util))
		return -1;
	return 0;
}
