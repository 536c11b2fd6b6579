// SPDX-License-Identifier: GPL-2.0
/* SchedTune guest tests: files, CPUs, cgroups, debugfs, cpufreq, tasks. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stune.h"

char fail_reason[512];

int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fail_reason, sizeof(fail_reason), fmt, ap);
	va_end(ap);
	return -1;
}

void info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Returns the number of bytes read, or -errno. */
int read_file(const char *path, char *buf, size_t size)
{
	int fd, n, len = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	close(fd);
	return len;
}

/* One write(2) of len bytes; returns 0 or -errno. */
int write_file_len(const char *path, const char *val, size_t len)
{
	int fd, n, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

int write_file(const char *path, const char *val)
{
	return write_file_len(path, val, strlen(val));
}

int read_long(const char *path, long *ret)
{
	char buf[64], *end;
	int n;

	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	errno = 0;
	*ret = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n'))
		return -EINVAL;
	return 0;
}

int path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int count_cpu_list(const char *path)
{
	char buf[128], *p;
	int n = 0, a, b, used;

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (p = buf; *p && *p != '\n';) {
		if (sscanf(p, "%d-%d%n", &a, &b, &used) == 2)
			n += b - a + 1;
		else if (sscanf(p, "%d%n", &a, &used) == 1)
			n += 1;
		else
			return -1;
		p += used;
		if (*p == ',')
			p++;
	}
	return n;
}

int nr_possible_cpus(void)
{
	return count_cpu_list("/sys/devices/system/cpu/possible");
}

int nr_online_cpus(void)
{
	return count_cpu_list("/sys/devices/system/cpu/online");
}

int pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void spin_us(long us)
{
	double end = now_s() + us / 1e6;

	while (now_s() < end)
		;
}

void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ---- schedtune cgroup controller ---- */

int stune_mount(void)
{
	char buf[4096];

	if (read_file("/proc/mounts", buf, sizeof(buf)) > 0 &&
	    strstr(buf, " " STUNE_MNT " cgroup "))
		return 0;
	mkdir(STUNE_MNT, 0755);
	if (mount("stune", STUNE_MNT, "cgroup", 0, "schedtune"))
		return -errno;
	return 0;
}

char *group_dir(const char *name)
{
	static char path[4][256];
	static int slot;
	char *p = path[slot++ % 4];

	if (!name || !*name || !strcmp(name, "/"))
		snprintf(p, 256, "%s", STUNE_MNT);
	else
		snprintf(p, 256, "%s/%s", STUNE_MNT, name);
	return p;
}

static char *group_file(const char *name, const char *file)
{
	static char path[4][300];
	static int slot;
	char *p = path[slot++ % 4];

	snprintf(p, 300, "%s/%s", group_dir(name), file);
	return p;
}

static int group_write_long(const char *name, const char *file, long v)
{
	char val[24];

	snprintf(val, sizeof(val), "%ld", v);
	return write_file(group_file(name, file), val);
}

int group_set_boost(const char *name, int boost)
{
	return group_write_long(name, "schedtune.boost", boost);
}

int group_get_boost(const char *name, long *ret)
{
	return read_long(group_file(name, "schedtune.boost"), ret);
}

int group_set_hold(const char *name, long hold_us)
{
	return group_write_long(name, "schedtune.hold_us", hold_us);
}

/* The boost of @cpu in the debugfs view, read alone; -1 on error. */
int cpu_boost_now(int cpu)
{
	static char buf[16384];
	char key[32], *p;

	if (read_file(STUNE_DEBUGFS, buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(key, sizeof(key), "\ncpu%d boost=", cpu);
	p = strstr(buf, key);
	return p ? atoi(p + strlen(key)) : -1;
}

/*
 * Make a group (or reuse one of that name) with that boost. A slot freed
 * by an rmdir is free when rmdir returns, so no ENOSPC is retried.
 */
int group_make(const char *name, int boost)
{
	int err;

	if (mkdir(group_dir(name), 0755) && errno != EEXIST)
		return fail("mkdir %s: %s", group_dir(name), strerror(errno));
	err = group_set_boost(name, boost);
	if (err)
		return fail("%s boost %d: %s", name, boost, strerror(-err));
	return 0;
}

int group_join(const char *name, pid_t pid)
{
	char val[16];

	snprintf(val, sizeof(val), "%d", pid);
	return write_file(group_file(name, "cgroup.procs"), val);
}

/* Move every task of a group to root, then remove the group. */
int group_remove(const char *name)
{
	char buf[8192], *line, *save;
	int tries;

	for (tries = 0; tries < 50; tries++) {
		if (read_file(group_file(name, "cgroup.procs"), buf,
			      sizeof(buf)) < 0)
			return -errno;
		if (!buf[0])
			break;
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			write_file(group_file("/", "cgroup.procs"), line);
	}
	if (rmdir(group_dir(name)))
		return -errno;
	return 0;
}

/* Root boost 0, no child groups, the sysctl at 0. */
int stune_reset(void)
{
	DIR *d;
	struct dirent *de;
	int err;

	err = stune_mount();
	if (err)
		return fail("mount -t cgroup -o schedtune: %s", strerror(-err));
	d = opendir(STUNE_MNT);
	if (!d)
		return fail("opendir %s: %s", STUNE_MNT, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		err = group_remove(de->d_name);
		if (err) {
			closedir(d);
			return fail("cannot remove group %s: %s", de->d_name,
				    strerror(-err));
		}
	}
	closedir(d);
	err = group_set_boost("/", 0);
	if (err)
		return fail("root schedtune.boost=0: %s", strerror(-err));
	return 0;
}

/* ---- debugfs ---- */

static int parse_counts(const char *s, int *tasks, int max)
{
	int n = 0, used, v;

	while (n < max && sscanf(s, "%d%n", &v, &used) == 1) {
		tasks[n++] = v;
		s += used;
		if (*s != ',')
			break;
		s++;
	}
	return n;
}

int stune_view_read(struct stune_view *v)
{
	static char buf[16384];
	char *line, *save, *p;
	int cpu, b, n;
	struct stune_group_view *g;

	memset(v, 0, sizeof(*v));
	v->used = -1;
	n = read_file(STUNE_DEBUGFS, buf, sizeof(buf));
	if (n < 0)
		return fail("read %s: %s", STUNE_DEBUGFS, strerror(-n));
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "used=%d", &v->used) == 1)
			continue;
		if (sscanf(line, "cpu%d boost=%d", &cpu, &b) == 2) {
			if (cpu != v->nr_cpus || cpu >= MAX_CPUS)
				return fail("debugfs: unexpected line '%s'",
					    line);
			v->cpu_boost[v->nr_cpus++] = b;
			continue;
		}
		if (!strncmp(line, "group ", 6)) {
			if (v->nr_groups >= STUNE_MAX_GROUPS + 4)
				return fail("debugfs: too many groups");
			g = &v->groups[v->nr_groups];
			if (sscanf(line, "group idx=%d name=%63s boost=%d",
				   &g->idx, g->name, &g->boost) != 3)
				return fail("debugfs: bad group line '%s'",
					    line);
			p = strstr(line, " tasks=");
			if (!p)
				return fail("debugfs: no tasks= in '%s'", line);
			n = parse_counts(p + 7, g->tasks, MAX_CPUS);
			if (n != nr_possible_cpus())
				return fail("debugfs: %d counts for %d CPUs in '%s'",
					    n, nr_possible_cpus(), line);
			/* Root has no hold; a child has hold_us= and held=. */
			g->hold_us = -1;
			p = strstr(line, " hold_us=");
			if (p && sscanf(p, " hold_us=%d", &g->hold_us) != 1)
				return fail("debugfs: bad hold_us= in '%s'", line);
			p = strstr(line, " held=");
			if (p && parse_counts(p + 6, g->held, MAX_CPUS) !=
				 nr_possible_cpus())
				return fail("debugfs: bad held= in '%s'", line);
			if (!strcmp(g->name, "/") != !p)
				return fail("debugfs: held= %s in '%s'",
					    p ? "on root" : "missing", line);
			v->nr_groups++;
			continue;
		}
		return fail("debugfs: unexpected line '%s'", line);
	}
	if (v->nr_cpus != nr_possible_cpus())
		return fail("debugfs: %d cpu lines for %d possible CPUs",
			    v->nr_cpus, nr_possible_cpus());
	return 0;
}

const struct stune_group_view *stune_view_group(const struct stune_view *v,
						const char *name)
{
	int i;

	for (i = 0; i < v->nr_groups; i++)
		if (!strcmp(v->groups[i].name, name))
			return &v->groups[i];
	return NULL;
}

/* Poll debugfs until the CPU shows that boost; 0 when it did. */
int wait_cpu_boost(int cpu, int boost, double timeout_s, int *ret_seen)
{
	struct stune_view v;
	double end = now_s() + timeout_s;

	do {
		if (stune_view_read(&v))
			return -1;
		*ret_seen = v.cpu_boost[cpu];
		if (v.cpu_boost[cpu] == boost)
			return 0;
		sleep_us(10000);
	} while (now_s() < end);
	return 1;
}

/* ---- cpufreq ---- */

/*
 * The test driver has no frequency table: it runs at exactly what
 * schedutil asks for. Ten evenly spaced "OPPs" from its minimum to its
 * maximum (200 to 2000 MHz) stand for one: a request rounds up to the next
 * one, as it would to a table's with CPUFREQ_RELATION_L.
 */
static int opp_bins_read(int cpu, struct opp_table *t)
{
	char path[128];
	long lo, hi;
	int i;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_min_freq", cpu);
	if (read_long(path, &lo))
		return fail("cannot read %s", path);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq", cpu);
	if (read_long(path, &hi))
		return fail("cannot read %s", path);
	if (hi <= lo)
		return fail("cpu%d: frequency range %ld..%ld kHz", cpu, lo, hi);
	t->nr = 10;
	for (i = 0; i < t->nr; i++)
		t->khz[i] = lo + (hi - lo) * i / (t->nr - 1);
	return 0;
}

int opp_table_read(int cpu, struct opp_table *t)
{
	char path[128], buf[512], *p, *end;
	long v;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_available_frequencies",
		 cpu);
	if (!path_exists(path))
		return opp_bins_read(cpu, t);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return fail("cannot read %s", path);
	t->nr = 0;
	for (p = buf; t->nr < MAX_OPPS; p = end) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (t->nr && v <= t->khz[t->nr - 1])
			return fail("%s not ascending", path);
		t->khz[t->nr++] = v;
	}
	if (t->nr < 2)
		return fail("%s: only %d OPPs", path, t->nr);
	return 0;
}

int opp_index(const struct opp_table *t, long khz)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (t->khz[i] >= khz)
			return i;
	return t->nr - 1;
}

long cpu_cur_khz(int cpu)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	return read_long(path, &v) ? -1 : v;
}

long cpu_capacity(int cpu)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
	return read_long(path, &v) ? -1 : v;
}

long self_util_avg(void)
{
	static char buf[8192];
	char *p;

	if (read_file("/proc/self/sched", buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "se.avg.util_avg");
	if (!p)
		return -1;
	p = strchr(p, ':');
	return p ? strtol(p + 1, NULL, 10) : -1;
}

/*
 * The OPP schedutil picks for a CPU of capacity cap running util with the
 * given boost: boosted = util + boost * (cap - util) / 100, then
 * freq = 1.25 * fmax * boosted / cap, the lowest OPP at or above it.
 */
int expected_opp(const struct opp_table *t, long util, long cap, int boost)
{
	long boosted, fmax = t->khz[t->nr - 1];
	unsigned long long khz;

	if (util > cap)
		util = cap;
	boosted = util + boost * (cap - util) / 100;
	boosted += boosted >> 2;
	khz = (unsigned long long)fmax * boosted / cap;
	return opp_index(t, (long)khz);
}

/*
 * The CPU's last frequency request as the test driver saw it: the
 * frequency and the root CFS runqueue's utilization schedutil computed it
 * from, max(util_avg, util_est) as cpu_util_cfs() takes it.
 */
int cpu_request(int cpu, long *khz, long *util)
{
	char path[96], buf[96];
	long avg, est;

	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/stune_test_cpufreq/cpu%d", cpu);
	if (read_file(path, buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%ld %ld %ld", khz, &avg, &est) != 3)
		return -1;
	*util = avg > est ? avg : est;
	return 0;
}

/*
 * What schedutil asks for at @util on a CPU of capacity @cap with @boost,
 * worked out from the documented formula: the boosted utilization, times
 * 1.25 (map_util_freq()), as a fraction of the capacity of fmax.
 */
long expected_khz(long fmin, long fmax, long util, long cap, int boost)
{
	long boosted;
	unsigned long long khz;

	if (util > cap)
		util = cap;
	boosted = util + (long)boost * (cap - util) / 100;
	khz = (unsigned long long)(fmax + (fmax >> 2)) * boosted / cap;
	if ((long)khz < fmin)
		return fmin;
	if ((long)khz > fmax)
		return fmax;
	return (long)khz;
}

/* schedutil's rate_limit_us file for @cpu's policy. */
void rate_limit_path(int cpu, char *path, size_t size)
{
	snprintf(path, size,
		 "/sys/devices/system/cpu/cpufreq/policy%d/schedutil/rate_limit_us",
		 cpu);
	if (!path_exists(path))
		snprintf(path, size,
			 "/sys/devices/system/cpu/cpufreq/schedutil/rate_limit_us");
}

/*
 * schedutil's rate_limit_us for @cpu's policy: per policy if the driver
 * asks for governor tunables per policy, else the global one. Returns the
 * old value, or -1.
 */
long set_rate_limit(int cpu, long us)
{
	char path[128], val[32];
	long old;

	rate_limit_path(cpu, path, sizeof(path));
	snprintf(val, sizeof(val), "%ld", us);
	if (read_long(path, &old) || write_file(path, val))
		return -1;
	return old;
}

/* ---- tasks ---- */

void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	memset(p, 0, size);
	return p;
}

struct periodic *periodic_new(int cpu, long busy_us, long period_us,
			      double seconds, const char *group)
{
	struct periodic *p = shared_alloc(sizeof(*p));

	p->cpu = cpu;
	p->busy_us = busy_us;
	p->busy_end_us = busy_us;
	p->period_us = period_us;
	p->seconds = seconds;
	p->group = group;
	p->max_samples = (int)(seconds * 1e6 / period_us) + 8;
	p->samples = shared_alloc(p->max_samples * sizeof(*p->samples));
	return p;
}

/* sched_setattr(2) with only the minimum utilisation clamp. */
int set_uclamp_min(int value)
{
	struct stune_sched_attr attr = {
		.size = sizeof(attr),
		/* SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MIN */
		.sched_flags = 0x08 | 0x10 | 0x20,
		.sched_util_min = value,
	};

	return syscall(SYS_sched_setattr, 0, &attr, 0) ? -errno : 0;
}

static void periodic_run(struct periodic *p)
{
	struct timespec next;
	struct stune_view v;
	struct sample *s;
	double t0 = now_s(), frac;
	long busy;

	if (pin_to_cpu(p->cpu))
		_exit(3);
	if (p->group && group_join(p->group, getpid()))
		_exit(4);
	if (p->uclamp_min > 0 && set_uclamp_min(p->uclamp_min))
		_exit(5);
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (p->start_delay_us) {
		sleep_us(p->start_delay_us);
		clock_gettime(CLOCK_MONOTONIC, &next);
	}
	t0 = now_s();
	while (now_s() - t0 < p->seconds && p->nr_samples < p->max_samples) {
		frac = (now_s() - t0) / p->seconds;
		busy = p->busy_us + (long)((p->busy_end_us - p->busy_us) * frac);
		if (p->owns_flag)
			*p->flag = 1;
		spin_us(busy);
		if (p->owns_flag) {
			*p->flag = 0;
			goto next;
		}
		s = &p->samples[p->nr_samples];
		s->t = now_s() - t0;
		s->flag = p->flag ? *p->flag : 0;
		if (cpu_request(p->cpu, &s->req_khz, &s->req_util))
			s->req_khz = s->req_util = -1;
		s->khz = p->light ? s->req_khz : cpu_cur_khz(p->cpu);
		s->util = p->light ? -1 : self_util_avg();
		s->cpu_boost = -1;
		if (p->sample_boost && !stune_view_read(&v))
			s->cpu_boost = v.cpu_boost[p->cpu];
		if (p->flag && !*p->flag)
			s->flag = 0;
		p->nr_samples++;
next:
		next.tv_nsec += p->period_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	_exit(0);
}

pid_t periodic_start(struct periodic *p)
{
	pid_t pid = fork();

	if (pid == 0)
		periodic_run(p);
	return pid;
}

/* Exit status of a child, or 128 + signal. */
int child_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void child_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	child_wait(pid);
}

/* A task that joins the group and spins on the CPU (RUNNABLE). */
pid_t spinner_start(int cpu, const char *group, double seconds)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (pin_to_cpu(cpu) || (group && group_join(group, getpid())))
			_exit(3);
		spin_us((long)(seconds * 1e6));
		_exit(0);
	}
	return pid;
}

/* A task that joins the group and sleeps (not RUNNABLE). */
pid_t sleeper_start(int cpu, const char *group)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (pin_to_cpu(cpu) || (group && group_join(group, getpid())))
			_exit(3);
		for (;;)
			pause();
	}
	return pid;
}

/* ---- tracing ---- */

int trace_event_enable(const char *event, bool on)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/stune_test/%s/enable",
		 event);
	return write_file(path, on ? "1" : "0");
}

/* An event of any system, "sched/sched_wakeup" say. */
int trace_event_enable_path(const char *system_event, bool on)
{
	char path[256];

	snprintf(path, sizeof(path), TRACEFS "/events/%s/enable",
		 system_event);
	return write_file(path, on ? "1" : "0");
}

int trace_clear(void)
{
	int fd, err = write_file(TRACEFS "/buffer_size_kb", "8192");

	if (err)
		return err;
	fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

char *trace_read(void)
{
	size_t size = 64 << 20;
	char *buf = malloc(size);
	int n;

	if (!buf)
		return NULL;
	n = read_file(TRACEFS "/trace", buf, size);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- the test cpufreq driver ---- */

#define CPUFREQ_KO	"/lib/stune_test_cpufreq.ko"

/* Run a busybox applet with its arguments; 0 when it exited with 0. */
static int run_cmd(const char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * Load the test cpufreq driver again, with @param ("shared=1") or without,
 * and make sure every policy runs schedutil.
 */
int cpufreq_reload(const char *param)
{
	const char *rm[] = { "/bin/rmmod", "stune_test_cpufreq", NULL };
	const char *ins[] = { "/bin/insmod", CPUFREQ_KO, param, NULL };
	char path[96], gov[32];
	int cpu;

	if (run_cmd(rm) || run_cmd(ins))
		return fail("cannot reload the test cpufreq driver%s%s",
			    param ? " with " : "", param ? param : "");
	for (cpu = 0; cpu < nr_possible_cpus(); cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor",
			 cpu);
		if (read_file(path, gov, sizeof(gov)) <= 0)
			return fail("no cpufreq policy for cpu%d after the reload", cpu);
		if (strncmp(gov, "schedutil", 9) && write_file(path, "schedutil"))
			return fail("cannot set schedutil on cpu%d", cpu);
	}
	return 0;
}


/* Run @fn with the test driver loaded with @param, then as it was. */
int with_cpufreq(const char *param, int (*fn)(void))
{
	int rc;

	if (cpufreq_reload(param))
		return -1;
	rc = fn();
	if (cpufreq_reload(NULL))
		return -1;
	return rc;
}

/* The calling task allowed on CPUs @first..@last only, and in @group. */
int allow_cpus_join(int first, int last, const char *group)
{
	cpu_set_t cpus;
	int cpu;

	CPU_ZERO(&cpus);
	for (cpu = first; cpu <= last; cpu++)
		CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		return -1;
	return group_join(group, getpid());
}

/* Field @key of cpu@cpu's line of the test driver's sched file; -1 if none. */
long driver_sched_field(int cpu, const char *key)
{
	char buf[1024], want[32], *line, *p;

	if (read_file("/sys/kernel/debug/stune_test_cpufreq/sched", buf, sizeof(buf)) <= 0)
		return -1;
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (strncmp(line, want, strlen(want)))
			continue;
		p = strstr(line, key);
		return p ? atol(p + strlen(key)) : -1;
	}
	return -1;
}

