// SPDX-License-Identifier: GPL-2.0
/*
 * SchedTune guest tests: what the counting costs and keeps (the static key,
 * save/restore pairs, class changes, thread group moves) and how fast a
 * raised boost reaches the frequency schedutil asks for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stune.h"
#include "tests.h"

static int view_count(const char *group, int cpu, int *ret)
{
	struct stune_view v;
	const struct stune_group_view *g;

	if (stune_view_read(&v))
		return -1;
	g = stune_view_group(&v, group);
	if (!g)
		return fail("group %s missing from debugfs", group);
	*ret = g->tasks[cpu];
	return 0;
}

/* Poll for a group's count and the CPU's boost; 0 once both match. */
static int expect_state(const char *group, int cpu, int count, int boost,
			const char *when)
{
	struct stune_view v;
	const struct stune_group_view *g;
	double end = now_s() + 3.0;

	do {
		if (stune_view_read(&v))
			return -1;
		g = stune_view_group(&v, group);
		if (!g)
			return fail("%s: group %s missing from debugfs", when,
				    group);
		if (g->tasks[cpu] == count && v.cpu_boost[cpu] == boost)
			return 0;
		sleep_us(10000);
	} while (now_s() < end);
	return fail("%s: group %s count %d on cpu%d with cpu boost %d, expected %d and %d",
		    when, group, g->tasks[cpu], cpu, v.cpu_boost[cpu], count,
		    boost);
}

/*
 * The static key stays off while every boost is 0, even with child groups
 * and RUNNABLE tasks in them, and nothing is counted; the first non-zero
 * boost turns it on and counts the tasks already RUNNABLE. Must run before
 * any other test of its boot sets a boost.
 */
int test_key_off_until_boost(void)
{
	struct stune_view v;
	pid_t a, b, c;
	int n = 0;

	SETUP_OR_FAIL(stune_reset());
	if (write_file(STUNE_SYSCTL, "0"))
		return fail("cannot write 0 to %s", STUNE_SYSCTL);
	if (stune_view_read(&v))
		return -1;
	if (v.used < 0)
		return fail("debugfs has no used= line");
	if (v.used)
		return fail("the key is on already: a boost was set earlier in this boot");
	SETUP_OR_FAIL(group_make("k", 0) || group_make("k2", 0));
	a = spinner_start(1, "k", 30);
	b = spinner_start(2, "k2", 30);
	c = sleeper_start(3, "k");
	sleep_us(300000);
	if (stune_view_read(&v))
		return -1;
	if (v.used)
		return fail("the key went on with every boost 0");
	if (view_count("k", 1, &n))
		return -1;
	if (n)
		return fail("a task of group k (boost 0) was counted on cpu1 with the key off");
	/* Writing 0 again changes nothing. */
	SETUP_OR_FAIL(group_set_boost("k", 0));
	if (stune_view_read(&v))
		return -1;
	if (v.used)
		return fail("writing boost 0 turned the key on");

	SETUP_OR_FAIL(group_set_boost("k", 40));
	if (stune_view_read(&v))
		return -1;
	if (v.used != 1)
		return fail("the key is off after the first non-zero boost");
	if (expect_state("k", 1, 1, 40, "first boost, task RUNNABLE before") ||
	    expect_state("k2", 2, 1, 0, "boost 0 group, task RUNNABLE before") ||
	    expect_state("k", 3, 0, 0, "sleeping task of k"))
		return -1;
	child_kill(a);
	child_kill(b);
	child_kill(c);
	if (expect_idle_view("tasks counted at the key's start killed"))
		return -1;
	/* It stays on with every boost back at 0, and counts stay exact. */
	SETUP_OR_FAIL(group_set_boost("k", 0));
	a = spinner_start(1, "k2", 30);
	if (stune_view_read(&v))
		return -1;
	if (v.used != 1)
		return fail("the key went off again");
	if (expect_state("k2", 1, 1, 0, "key on, boost 0"))
		return -1;
	child_kill(a);
	if (expect_idle_view("after the last task"))
		return -1;
	return stune_reset();
}

/* Trace lines of @event about @cpu ("cpu=N " in the event's fields). */
static int count_events(const char *trace, const char *event, int cpu)
{
	char key[64], cpukey[32];
	const char *p = trace, *eol;
	int n = 0;

	snprintf(key, sizeof(key), " %s: ", event);
	snprintf(cpukey, sizeof(cpukey), "cpu=%d ", cpu);
	while ((p = strstr(p, key))) {
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		if (memmem(p, eol - p, cpukey, strlen(cpukey)))
			n++;
		p = eol;
	}
	return n;
}

/*
 * renice and affinity changes dequeue and enqueue a RUNNABLE task with
 * DEQUEUE_SAVE/ENQUEUE_RESTORE: its count stays as it is (no update
 * traced), so its CPU's boost never drops in between.
 */
int test_save_restore_keeps_count(void)
{
	cpu_set_t set;
	char *trace;
	pid_t pid;
	int i, n, b, cpu = 2;

	SETUP_OR_FAIL(stune_reset() || group_make("s", 50));
	pid = spinner_start(cpu, "s", 30);
	if (expect_state("s", cpu, 1, 50, "spinner in s"))
		return -1;
	SETUP_OR_FAIL(trace_clear() ||
		      trace_event_enable("sched_tune_tasks_update", true) ||
		      trace_event_enable("sched_tune_cpu_boost", true));
	for (i = 0; i < 20; i++) {
		if (setpriority(PRIO_PROCESS, pid, i % 2 ? 5 : -5))
			return fail("setpriority: %s", strerror(errno));
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (i % 2)
			CPU_SET(cpu + 1, &set);
		if (sched_setaffinity(pid, sizeof(set), &set))
			return fail("sched_setaffinity: %s", strerror(errno));
		sleep_us(2000);
	}
	trace_event_enable("sched_tune_tasks_update", false);
	trace_event_enable("sched_tune_cpu_boost", false);
	trace = trace_read();
	if (!trace)
		return fail("cannot read the trace");
	n = count_events(trace, "sched_tune_tasks_update", cpu);
	b = count_events(trace, "sched_tune_cpu_boost", cpu);
	free(trace);
	info("20 renices and affinity changes: %d count updates, %d boost changes on cpu%d",
	     n, b, cpu);
	if (n || b)
		return fail("save/restore pairs updated the count %d times and the boost %d times on cpu%d",
			    n, b, cpu);
	if (expect_state("s", cpu, 1, 50, "after the renices"))
		return -1;
	child_kill(pid);
	if (expect_idle_view("spinner killed"))
		return -1;
	return stune_reset();
}

/* The group's count summed over every CPU comes to @count. */
static int expect_group_total(const char *group, int count, const char *when)
{
	struct stune_view v;
	const struct stune_group_view *g;
	double end = now_s() + 3.0;
	int cpu, n = -1;

	do {
		if (stune_view_read(&v))
			return -1;
		g = stune_view_group(&v, group);
		if (!g)
			return fail("%s: group %s missing", when, group);
		for (n = 0, cpu = 0; cpu < v.nr_cpus; cpu++)
			n += g->tasks[cpu];
		if (n == count)
			return 0;
		sleep_us(10000);
	} while (now_s() < end);
	return fail("%s: group %s counts %d tasks, expected %d", when, group,
		    n, count);
}

/* sched_setattr(2) to SCHED_DEADLINE (2 ms every 10 ms) or back. */
static int set_deadline(pid_t pid, bool on)
{
	struct stune_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = on ? 6 : SCHED_OTHER,	/* SCHED_DEADLINE */
		.sched_runtime = on ? 2000000 : 0,
		.sched_deadline = on ? 10000000 : 0,
		.sched_period = on ? 10000000 : 0,
	};

	return syscall(SYS_sched_setattr, pid, &attr, 0) ? -errno : 0;
}

/*
 * Only CFS tasks count: a task made RT or DL leaves its count, and comes
 * back with it.
 */
int test_class_switch(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t set;
	pid_t pid;
	int err, i, cpu = 3;

	SETUP_OR_FAIL(stune_reset() || group_make("c", 60));
	pid = spinner_start(cpu, "c", 30);
	if (expect_state("c", cpu, 1, 60, "CFS spinner in c"))
		return -1;
	if (sched_setscheduler(pid, SCHED_FIFO, &sp))
		return fail("SCHED_FIFO: %s", strerror(errno));
	if (expect_state("c", cpu, 0, 0, "spinner made SCHED_FIFO"))
		return -1;
	sp.sched_priority = 0;
	if (sched_setscheduler(pid, SCHED_OTHER, &sp))
		return fail("SCHED_OTHER: %s", strerror(errno));
	if (expect_state("c", cpu, 1, 60, "spinner back to SCHED_OTHER"))
		return -1;
	/* SCHED_DEADLINE wants the whole root domain in the affinity. */
	CPU_ZERO(&set);
	for (i = 0; i < nr_online_cpus(); i++)
		CPU_SET(i, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		return fail("sched_setaffinity: %s", strerror(errno));
	err = set_deadline(pid, true);
	if (err)
		return fail("SCHED_DEADLINE: %s", strerror(-err));
	if (expect_group_total("c", 0, "spinner made SCHED_DEADLINE"))
		return -1;
	err = set_deadline(pid, false);
	if (err)
		return fail("back from SCHED_DEADLINE: %s", strerror(-err));
	if (expect_group_total("c", 1, "spinner back from SCHED_DEADLINE"))
		return -1;
	child_kill(pid);
	if (expect_idle_view("spinner killed"))
		return -1;
	return stune_reset();
}

static volatile int tg_stop;

static void *tg_spin(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return NULL;
	while (!tg_stop)
		;
	return NULL;
}

/*
 * A process whose three threads spin on CPUs 1-3 moves into a group by its
 * PID in cgroup.procs: each thread's CPU counts it and takes the group's
 * boost; back to root, every count drops.
 */
int test_threadgroup_attach(void)
{
	pthread_t th[3];
	pid_t pid;
	int cpu, i;

	SETUP_OR_FAIL(stune_reset() || group_make("tg", 70));
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 3; i++)
			pthread_create(&th[i], NULL, tg_spin, (void *)(long)(i + 1));
		pause();
		_exit(0);
	}
	sleep_us(300000);
	if (group_join("tg", pid))
		return fail("cannot move process %d into tg", pid);
	for (cpu = 1; cpu <= 3; cpu++)
		if (expect_state("tg", cpu, 1, 70, "thread group moved into tg"))
			return -1;
	if (group_join("/", pid))
		return fail("cannot move process %d back to root", pid);
	for (cpu = 1; cpu <= 3; cpu++)
		if (expect_state("tg", cpu, 0, 0, "thread group moved to root"))
			return -1;
	child_kill(pid);
	if (expect_idle_view("process killed"))
		return -1;
	return stune_reset();
}

/* ---- wakeup response ---- */

#define WR_PERIOD_US	20000
#define WR_ACTIVATIONS	150
#define WR_WARMUP	20
#define WR_GOOD		0.95

struct wr_shared {
	int nr;
	long khz[WR_ACTIVATIONS];	/* B's sample at each wakeup */
	long low[WR_ACTIVATIONS];	/* U's frequency when it ran */
	int pipefd[2];
	pid_t b_pid;
};

static void ts_add(struct timespec *t, long us)
{
	t->tv_nsec += us * 1000;
	while (t->tv_nsec >= 1000000000) {
		t->tv_nsec -= 1000000000;
		t->tv_sec++;
	}
}

static void sleep_until(const struct timespec *t0, long us)
{
	struct timespec t = *t0;

	ts_add(&t, us);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) ==
	       EINTR)
		;
}

/*
 * Trace timestamp (seconds) of a line, "... 35.123456: event: ...", where
 * @ev points at the space before the event's name.
 */
static double line_ts(const char *line, const char *ev)
{
	const char *p = ev;

	if (p > line && p[-1] == ':')
		p--;
	while (p > line && p[-1] != ' ')
		p--;
	return atof(p);
}

/*
 * From the trace: for each sched_waking of @pid, the delay to the first
 * cpu_frequency request of @cpu at @khz or above (0 when the CPU was at it
 * already), until the next waking. Prints the distribution.
 */
static void wakeup_latencies(const char *trace, pid_t pid, int cpu, long khz,
			     const char *what)
{
	static double lat[WR_ACTIVATIONS * 4];
	char pidkey[32], cpukey[32];
	const char *p = trace, *eol, *ev;
	static const double edge[6] = { 100, 200, 500, 1000, 5000, 10000 };
	double waking = -1, t;
	long cur = -1, state;
	int n = 0, missed = 0, i, j, hist[7] = { 0 };

	snprintf(pidkey, sizeof(pidkey), " pid=%d ", pid);
	snprintf(cpukey, sizeof(cpukey), " cpu_id=%d", cpu);
	for (; *p; p = eol + 1) {
		eol = strchr(p, '\n');
		if (!eol)
			break;
		ev = memmem(p, eol - p, " sched_waking: ", 15);
		if (ev && memmem(p, eol - p, pidkey, strlen(pidkey))) {
			if (waking >= 0)
				missed++;
			waking = line_ts(p, ev);
			if (cur >= khz && n < (int)(sizeof(lat) / sizeof(lat[0]))) {
				lat[n++] = 0;
				waking = -1;
			}
			continue;
		}
		ev = memmem(p, eol - p, " cpu_frequency: ", 16);
		if (!ev || !memmem(p, eol - p, cpukey, strlen(cpukey)))
			continue;
		if (sscanf(ev, " cpu_frequency: state=%ld", &state) != 1)
			continue;
		cur = state;
		t = line_ts(p, ev);
		if (waking >= 0 && state >= khz &&
		    n < (int)(sizeof(lat) / sizeof(lat[0]))) {
			lat[n++] = t - waking;
			waking = -1;
		}
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && lat[j - 1] > lat[j]; j--) {
			t = lat[j];
			lat[j] = lat[j - 1];
			lat[j - 1] = t;
		}
	if (!n) {
		info("%s: waking -> request: none of the wakeups got it (%d)",
		     what, missed);
		return;
	}
	info("%s: waking -> cpu_frequency %ld kHz (us): n=%d median=%.0f p90=%.0f max=%.0f; %d wakeups without it",
	     what, khz, n, lat[n / 2] * 1e6, lat[n * 9 / 10] * 1e6,
	     lat[n - 1] * 1e6, missed);
	/* The distribution, in guest trace time. */
	for (i = 0; i < n; i++) {
		for (j = 0; j < 6 && lat[i] * 1e6 >= edge[j]; j++)
			;
		hist[j]++;
	}
	info("%s: waking -> request: <100us %d, 100-200us %d, 200-500us %d, 0.5-1ms %d, 1-5ms %d, 5-10ms %d, >=10ms %d, none before the next wakeup %d",
	     what, hist[0], hist[1], hist[2], hist[3], hist[4], hist[5],
	     hist[6], missed);
}

/* How B is boosted: a group of boost 100, or uclamp.min 1024 (mainline). */
enum wr_boost { WR_GROUP, WR_UCLAMP };

/*
 * On @cpu, with schedutil's rate limit at 10 ms: an unboosted task U runs
 * 1 ms at the start of each 20 ms period, which lowers the frequency (the
 * boosted task is asleep), and a task B, boosted as @how says, wakes 8 ms
 * later, samples its CPU's frequency first thing, and runs 1 ms. @remote:
 * B sleeps on a pipe that a waker on another CPU writes while U is
 * running, so that the wakeup is queued onto @cpu from the waker's CPU.
 * With @judge, of the wakeups that follow a period where U found a
 * frequency below the highest, B must find the highest at >= 95 %;
 * without (the benchmark, tests/bench/bench-kernel), the figures are only
 * printed.
 */
static int wakeup_response(int cpu, bool remote, const char *what,
			   enum wr_boost how, bool judge)
{
	struct wr_shared *sh = shared_alloc(sizeof(*sh));
	struct opp_table t;
	struct timespec t0;
	pid_t u, b, w = -1;
	int k, good = 0, lowered = 0, total = 0, rc;
	long fmax, old_rate, b_at = remote ? 1500 : 8000;
	char *trace;
	char c = 0;

	if (how == WR_GROUP)
		SETUP_OR_FAIL(stune_reset() || group_make("wr", 100));
	if (opp_table_read(cpu, &t))
		return -1;
	fmax = t.khz[t.nr - 1];
	old_rate = set_rate_limit(cpu, 10000);
	if (old_rate < 0)
		return fail("cannot set schedutil's rate_limit_us of cpu%d",
			    cpu);
	if (pipe(sh->pipefd))
		return fail("pipe: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ts_add(&t0, 300000);

	SETUP_OR_FAIL(trace_clear() ||
		      trace_event_enable_path("sched/sched_waking", true) ||
		      trace_event_enable_path("power/cpu_frequency", true));
	u = fork();
	if (u == 0) {
		if (pin_to_cpu(cpu))
			_exit(3);
		for (k = 0; k < WR_ACTIVATIONS; k++) {
			sleep_until(&t0, (long)k * WR_PERIOD_US);
			/* What U's wakeup asked for, before B wakes. */
			sh->low[k] = cpu_cur_khz(cpu);
			/* remote: busy while the waker wakes B */
			spin_us(remote ? 3000 : 1000);
		}
		_exit(0);
	}
	b = fork();
	if (b == 0) {
		if (pin_to_cpu(cpu))
			_exit(3);
		if (how == WR_GROUP ? group_join("wr", getpid()) :
				      set_uclamp_min(1024))
			_exit(3);
		for (k = 0; k < WR_ACTIVATIONS; k++) {
			if (remote) {
				if (read(sh->pipefd[0], &c, 1) != 1)
					_exit(4);
			} else {
				sleep_until(&t0, (long)k * WR_PERIOD_US + b_at);
			}
			sh->khz[k] = cpu_cur_khz(cpu);
			spin_us(1000);
			sh->nr = k + 1;
		}
		_exit(0);
	}
	sh->b_pid = b;
	if (remote) {
		w = fork();
		if (w == 0) {
			if (pin_to_cpu(cpu == 1 ? 2 : 1))
				_exit(3);
			for (k = 0; k < WR_ACTIVATIONS; k++) {
				sleep_until(&t0, (long)k * WR_PERIOD_US + b_at);
				if (write(sh->pipefd[1], &c, 1) != 1)
					_exit(4);
			}
			_exit(0);
		}
	}
	rc = child_wait(u) | child_wait(b);
	if (w > 0)
		rc |= child_wait(w);
	trace_event_enable_path("sched/sched_waking", false);
	trace_event_enable_path("power/cpu_frequency", false);
	set_rate_limit(cpu, old_rate);
	if (rc)
		return fail("a task of the test exited with %d", rc);

	/*
	 * Only the periods where U's wakeup did lower the frequency test the
	 * response: in the others B finds fmax whatever the kernel does.
	 */
	for (k = WR_WARMUP; k < sh->nr; k++) {
		total++;
		if (sh->low[k] >= fmax)
			continue;
		lowered++;
		good += sh->khz[k] == fmax;
	}
	info("%s: U lowered the frequency in %d of %d periods; B then found %ld kHz at %d of them",
	     what, lowered, total, fmax, good);
	trace = trace_read();
	if (trace) {
		wakeup_latencies(trace, b, cpu, fmax, what);
		free(trace);
	}
	if (total < WR_ACTIVATIONS / 2)
		return fail("%s: only %d activations", what, total);
	if (!judge)
		return how == WR_GROUP ? stune_reset() : 0;
	/* The set-up must have lowered the frequency before B woke. */
	if (lowered < total / 4)
		return fail("%s: U ran below %ld kHz in only %d of %d periods: the test did not lower the frequency",
			    what, fmax, lowered, total);
	if (good < WR_GOOD * lowered)
		return fail("%s: B found %ld kHz at only %d of the %d wakeups after a lower frequency",
			    what, fmax, good, lowered);
	return stune_reset();
}

int test_wakeup_response_local(void)
{
	return wakeup_response(1, false, "local wakeup", WR_GROUP, true);
}

int test_wakeup_response_remote(void)
{
	return wakeup_response(1, true, "remote wakeup", WR_GROUP, true);
}

/*
 * A raised boost or uclamp.min bypasses the rate limit to raise the
 * frequency, never to lower it. Each 40 ms on @cpu, with a 10 ms rate
 * limit: L (root) runs 1 ms, which lowers the frequency; H (root,
 * uclamp.min 1024) wakes 15 ms later, asks for fmax and runs 0.5 ms; B (a
 * boost 10 group, light) wakes 6 ms after H, inside the rate limit of H's
 * request, with the CPU idle in between, and samples the frequency. B's
 * boost rose from 0, so schedutil skips the rate limit for it; what it
 * computes (B's small utilization plus a 10 % margin) is below fmax, and a
 * bypass that lowered the frequency would show here. Of the periods where
 * L lowered the frequency and H then got fmax, B must find fmax in >= 90 %
 * (v2: 53 to 55 of 55; v1, whose bypass lowered it: 6 of 49).
 */
#define BL_PERIOD_US	40000
#define BL_PERIODS	60

struct bl_shared {
	long l_khz[BL_PERIODS];
	long h_khz[BL_PERIODS];
	long b_khz[BL_PERIODS];
	int nr;
};

/*
 * @b_uclamp: B raises its CPU's uclamp.min (to 100) instead of its boost,
 * and H asks for fmax with a boost of 100 instead of a uclamp.min.
 */
static int bypass_never_lowers(bool b_uclamp)
{
	struct bl_shared *sh = shared_alloc(sizeof(*sh));
	int cpu = 1, k, rc, valid = 0, good = 0;
	struct opp_table t;
	struct timespec t0;
	long fmax, old_rate;
	pid_t l, h, b;

	SETUP_OR_FAIL(stune_reset() || group_make("bl", b_uclamp ? 100 : 10) ||
		      opp_table_read(cpu, &t) || pin_to_cpu(0));
	fmax = t.khz[t.nr - 1];
	old_rate = set_rate_limit(cpu, 10000);
	if (old_rate < 0)
		return fail("cannot set schedutil's rate_limit_us of cpu%d", cpu);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ts_add(&t0, 200000);
	l = fork();
	if (l == 0) {
		if (pin_to_cpu(cpu))
			_exit(3);
		for (k = 0; k < BL_PERIODS; k++) {
			sleep_until(&t0, (long)k * BL_PERIOD_US);
			spin_us(1000);
			sh->l_khz[k] = cpu_cur_khz(cpu);
		}
		_exit(0);
	}
	h = fork();
	if (h == 0) {
		if (pin_to_cpu(cpu) || (b_uclamp ? group_join("bl", getpid()) :
					set_uclamp_min(1024)))
			_exit(3);
		for (k = 0; k < BL_PERIODS; k++) {
			sleep_until(&t0, (long)k * BL_PERIOD_US + 15000);
			sh->h_khz[k] = cpu_cur_khz(cpu);
			spin_us(500);
		}
		_exit(0);
	}
	b = fork();
	if (b == 0) {
		if (pin_to_cpu(cpu) || (b_uclamp ? set_uclamp_min(100) :
					group_join("bl", getpid())))
			_exit(3);
		for (k = 0; k < BL_PERIODS; k++) {
			sleep_until(&t0, (long)k * BL_PERIOD_US + 21000);
			sh->b_khz[k] = cpu_cur_khz(cpu);
			spin_us(300);
			sh->nr = k + 1;
		}
		_exit(0);
	}
	rc = child_wait(l) | child_wait(h) | child_wait(b);
	set_rate_limit(cpu, old_rate);
	if (rc)
		return fail("a task of the test exited with %d", rc);
	/* Only where L lowered it and H raised it: H's request is fresh. */
	for (k = 5; k < sh->nr; k++) {
		if (sh->l_khz[k] >= fmax || sh->h_khz[k] < fmax)
			continue;
		valid++;
		good += sh->b_khz[k] >= fmax;
	}
	info("L lowered and H then found %ld kHz in %d of %d periods; B then found it at %d",
	     fmax, valid, sh->nr - 5, good);
	for (k = 5; k < sh->nr && k < 10; k++)
		info("  period %d: L %ld kHz, H %ld kHz, B %ld kHz", k,
		     sh->l_khz[k], sh->h_khz[k], sh->b_khz[k]);
	if (valid < (sh->nr - 5) / 2)
		return fail("L lowered and H raised the frequency in only %d of %d periods: the test cannot tell",
			    valid, sh->nr - 5);
	if (good < 0.9 * valid) {
		return fail("B's raised %s lowered the frequency inside the rate limit: fmax at %d of %d wakeups",
			    b_uclamp ? "uclamp.min" : "boost", good, valid);
	}
	return stune_reset();
}

int test_bypass_never_lowers(void)
{
	return bypass_never_lowers(false);
}

int test_bypass_never_lowers_uclamp(void)
{
	return bypass_never_lowers(true);
}

/*
 * The same response for a raised uclamp.min (B in the root group with
 * uclamp.min 1024): the series' rate-limit bypass covers a raised clamp
 * as it covers a raised boost.
 */
int test_wakeup_response_uclamp_local(void)
{
	return wakeup_response(1, false, "uclamp.min 1024, local wakeup",
			       WR_UCLAMP, true);
}

int test_wakeup_response_uclamp_remote(void)
{
	return wakeup_response(1, true, "uclamp.min 1024, remote wakeup",
			       WR_UCLAMP, true);
}

/* The benchmark's runs (not tests: they report and do not judge). */
int test_bench_response_group(void)
{
	return wakeup_response(1, false, "group boost 100, local", WR_GROUP, false) ||
	       wakeup_response(1, true, "group boost 100, remote", WR_GROUP, false);
}

int test_bench_response_uclamp(void)
{
	return wakeup_response(1, false, "uclamp.min 1024, local", WR_UCLAMP, false) ||
	       wakeup_response(1, true, "uclamp.min 1024, remote", WR_UCLAMP, false);
}

/* ---- Energy Aware Scheduling (asym boot) ---- */

#define EAS_PERIODS	150
#define EAS_WARMUP	20

struct eas_shared {
	int nr;
	int cpu[EAS_PERIODS];
	long khz[EAS_PERIODS];	/* its CPU's frequency at the end of each */
};

/* The kernel log says EAS started (after the energy model came). */
static bool eas_started(void)
{
	char rec[1024];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return false;
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (strstr(rec, "starting EAS"))
			found = true;
	}
	close(fd);
	return found;
}

/*
 * A light periodic task (1 ms every 20 ms), allowed on every CPU, in a
 * group of that boost: which CPUs it ran on, after a warm-up; *ret_sh, if
 * not NULL, gets the record of each activation.
 */
static int eas_run_shared(int boost, int *on_big, int *total, pid_t *ret_pid,
			  struct eas_shared **ret_sh)
{
	struct eas_shared *sh = shared_alloc(sizeof(*sh));
	struct timespec t0;
	pid_t pid;
	int k, rc;

	SETUP_OR_FAIL(group_make("eas", boost));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		if (allow_cpus_join(0, nr_online_cpus() - 1, "eas"))
			_exit(3);
		for (k = 0; k < EAS_PERIODS; k++) {
			sleep_until(&t0, (long)k * WR_PERIOD_US);
			sh->cpu[k] = sched_getcpu();
			spin_us(1000);
			sh->khz[k] = cpu_cur_khz(sh->cpu[k]);
			sh->nr = k + 1;
		}
		_exit(0);
	}
	*ret_pid = pid;
	rc = child_wait(pid);
	if (rc)
		return fail("the periodic task exited with %d", rc);
	*on_big = *total = 0;
	for (k = EAS_WARMUP; k < sh->nr; k++) {
		(*total)++;
		*on_big += cpu_capacity(sh->cpu[k]) == 1024;
	}
	if (ret_sh)
		*ret_sh = sh;
	return 0;
}

static int eas_run(int boost, int *on_big, int *total, pid_t *ret_pid)
{
	return eas_run_shared(boost, on_big, total, ret_pid, NULL);
}

/*
 * Energy estimates price the waking task's boost (patch "energy estimates
 * see the waking task's boost"), whatever schedtune.prefer_fit says. On
 * the asymmetric boot with the SoC-shaped energy model, and the test
 * driver reloaded with qemu_speed=1 so that a task's utilization is its
 * duty cycle whatever the frequency: on small CPU 2 a task R of a boost-45
 * group runs 1.9 ms every 16 ms (util about 160) and its group's 50 ms hold
 * keeps CPU 2 at boost 45; on small CPU 3 a root task W runs 0.9 ms every
 * 16 ms (about 70); a light task T of another boost-45 group (0.3 ms every
 * 16 ms, about 44), allowed on CPUs 2 and 3, wakes in between. T fits a
 * small CPU at boost 45 (its boosted minimum, about 480, is below 512), so
 * placement is EAS's to decide. Priced with T's boost, CPU 3 would run W
 * boosted too while CPU 2 runs at boost 45 already: CPU 2 costs the least
 * (1.16 times less in tests/kernel/eas-model.py). Without the price CPU 3
 * looks cheaper (1.44 times), unboosted as it is, and T would boost it.
 * T must run on CPU 2 at >= 80 % of its activations, with prefer_fit on
 * and off; a kernel whose estimates leave the waking task's boost out put
 * it on CPU 2 at 5 of 130. EAS must have been on (the root domain not
 * overutilized) at >= 75 % of polls, or the test cannot tell.
 */
#define EP_PERIOD_US	16000
#define EP_PERIODS	150

struct ep_shared {
	int nr;
	int cpu[EP_PERIODS];
	volatile int stop;
};

static pid_t ep_resident(int cpu, const char *group, long busy_us,
			 long offset_us, const struct timespec *t0,
			 struct ep_shared *sh)
{
	pid_t pid = fork();
	int k;

	if (pid == 0) {
		if (pin_to_cpu(cpu) || (group && group_join(group, getpid())))
			_exit(3);
		for (k = 0; !sh->stop; k++) {
			sleep_until(t0, (long)k * EP_PERIOD_US + offset_us);
			spin_us(busy_us);
		}
		_exit(0);
	}
	return pid;
}

static int eas_price_run(int prefer_fit, int *on2, int *on3, int *total)
{
	struct ep_shared *sh = shared_alloc(sizeof(*sh));
	int k, rc, polls = 0, over = 0;
	struct timespec t0;
	pid_t r, w, t;

	SETUP_OR_FAIL(stune_reset() || group_make("ep", 45) ||
		      group_make("er", 45) || group_set_hold("er", 50000) ||
		      write_file(STUNE_MNT "/ep/schedtune.prefer_fit",
				 prefer_fit ? "1" : "0") || pin_to_cpu(0));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ts_add(&t0, 100000);
	r = ep_resident(2, "er", 1900, 4000, &t0, sh);
	w = ep_resident(3, NULL, 900, 8000, &t0, sh);
	/* The utilizations settle, after the driver's reload and the forks. */
	ts_add(&t0, 62 * EP_PERIOD_US);
	sleep_until(&t0, 0);
	t = fork();
	if (t == 0) {
		/* The two small CPUs: the choice the price decides. */
		if (allow_cpus_join(2, 3, "ep"))
			_exit(3);
		for (k = 0; k < EP_PERIODS; k++) {
			sleep_until(&t0, (long)k * EP_PERIOD_US);
			sh->cpu[k] = sched_getcpu();
			spin_us(300);
			sh->nr = k + 1;
		}
		_exit(0);
	}
	/* Is EAS on? Not while the root domain is overutilized. */
	while (sh->nr < EP_PERIODS && polls < 4000) {
		polls++;
		over += driver_sched_field(0, "overutilized=") > 0;
		sleep_us(3000);
	}
	rc = child_wait(t);
	sh->stop = 1;
	rc |= child_wait(r) | child_wait(w);
	if (rc)
		return fail("a task of the test exited with %d", rc);
	if (over * 4 > polls)
		return fail("prefer_fit %d: the root domain was overutilized (EAS off) at %d of %d polls: the test cannot tell",
			    prefer_fit, over, polls);
	*on2 = *on3 = *total = 0;
	for (k = EAS_WARMUP; k < sh->nr; k++) {
		(*total)++;
		*on2 += sh->cpu[k] == 2;
		*on3 += sh->cpu[k] == 3;
	}
	info("prefer_fit %d: T ran on cpu2 (boosted by the other group's hold) at %d, on cpu3 (unboosted) at %d, of %d activations; EAS off at %d of %d polls",
	     prefer_fit, *on2, *on3, *total, over, polls);
	return 0;
}

static int eas_task_boost(void)
{
	int on2 = 0, on3 = 0, total = 0, fit;

	for (fit = 1; fit >= 0; fit--) {
		if (eas_price_run(fit, &on2, &on3, &total))
			return -1;
		if (total < EP_PERIODS / 2)
			return fail("too few activations: %d", total);
		if (on2 < total * 4 / 5)
			return fail("prefer_fit %d: T ran on the boosted cpu2 at only %d of %d activations (%d on unboosted cpu3): its boost was not priced",
				    fit, on2, total, on3);
	}
	return stune_reset();
}

int test_asym_eas_task_boost(void)
{
	if (!eas_started())
		return fail("the kernel log does not say \"starting EAS\"");
	if (cpu_capacity(2) >= 1024 || cpu_capacity(3) >= 1024)
		return fail("cpu2 and cpu3 are not the small CPUs");
	return with_cpufreq("qemu_speed=1", eas_task_boost);
}

/*
 * Placement by the boosted utilization (schedtune.prefer_fit, on by
 * default): the light task (about 5% of a big CPU) fits a small CPU
 * (capacity 512) only while util + boost * (1024 - util) / 100 <= 512, so
 * at boost 50 it goes big whatever the energy model says. With prefer_fit
 * off the boost changes the frequency only: at boost 100 the task is
 * placed as at boost 0, on a small CPU, which runs at its highest OPP.
 */
int test_asym_prefer_fit(void)
{
	int big0, total0, big50, total50, big100, total100, k, top = 0, small = 0;
	struct eas_shared *sh;
	struct opp_table t;
	long v;
	pid_t pid;

	if (!eas_started())
		return fail("the kernel log does not say \"starting EAS\"");
	SETUP_OR_FAIL(stune_reset() || group_make("eas", 0) ||
		      opp_table_read(2, &t));
	if (read_long(STUNE_MNT "/eas/schedtune.prefer_fit", &v) || v != 1)
		return fail("schedtune.prefer_fit of a new group is not 1");
	if (eas_run(0, &big0, &total0, &pid))
		return -1;
	if (eas_run(50, &big50, &total50, &pid))
		return -1;
	SETUP_OR_FAIL(write_file(STUNE_MNT "/eas/schedtune.prefer_fit", "0"));
	if (eas_run_shared(100, &big100, &total100, &pid, &sh))
		return -1;
	for (k = EAS_WARMUP; k < sh->nr; k++) {
		if (cpu_capacity(sh->cpu[k]) == 1024)
			continue;
		small++;
		top += sh->khz[k] == t.khz[t.nr - 1];
	}
	info("boost 0: %d of %d on a big CPU; boost 50: %d of %d; boost 100 with prefer_fit off: %d of %d, and %d of %d on a small CPU at its highest OPP",
	     big0, total0, big50, total50, big100, total100, top, small);
	if (total0 < EAS_PERIODS / 2 || total50 < EAS_PERIODS / 2 ||
	    total100 < EAS_PERIODS / 2)
		return fail("too few activations");
	if (big0 > total0 / 5)
		return fail("boost 0: %d of %d activations on a big CPU", big0,
			    total0);
	if (big50 < total50 * 4 / 5)
		return fail("boost 50: only %d of %d activations on a big CPU",
			    big50, total50);
	if (big100 > total100 / 5)
		return fail("boost 100, prefer_fit off: %d of %d activations on a big CPU",
			    big100, total100);
	if (top < small * 4 / 5)
		return fail("boost 100, prefer_fit off: the small CPU at its highest OPP at only %d of %d activations",
			    top, small);
	return stune_reset();
}

/* ---- hotplug, priority inheritance, bandwidth throttling ---- */

static int cpu_set_online(int cpu, bool on)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return write_file(path, on ? "1" : "0");
}

/*
 * A counted task on a CPU that goes offline moves with its count; the
 * offline CPU keeps none, and comes back online at its root boost.
 */
int test_hotplug_counted(void)
{
	cpu_set_t set;
	pid_t pid;
	int err;

	SETUP_OR_FAIL(stune_reset() || group_make("hp", 60));
	pid = spinner_start(3, "hp", 30);
	if (expect_state("hp", 3, 1, 60, "spinner on cpu3"))
		return -1;
	CPU_ZERO(&set);
	CPU_SET(2, &set);
	CPU_SET(3, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		return fail("sched_setaffinity: %s", strerror(errno));
	err = cpu_set_online(3, false);
	if (err)
		return fail("cannot take cpu3 offline: %s", strerror(-err));
	if (expect_state("hp", 2, 1, 60, "cpu3 offline, task on cpu2") ||
	    expect_state("hp", 3, 0, 0, "cpu3 offline")) {
		cpu_set_online(3, true);
		return -1;
	}
	err = cpu_set_online(3, true);
	if (err)
		return fail("cannot bring cpu3 back: %s", strerror(-err));
	child_kill(pid);
	if (expect_idle_view("after hotplug, task killed"))
		return -1;
	return stune_reset();
}

struct pi_shared {
	pthread_mutex_t lock;
	volatile int locked;
	volatile int waiting;
	volatile int release;
};

/*
 * Priority inheritance: a CFS task of a boosted group holds a PI mutex an
 * RT task waits for, so it runs as RT meanwhile and is not counted; once
 * it releases the mutex it is CFS and counted again.
 */
int test_pi_boosted_holder(void)
{
	struct pi_shared *sh = shared_alloc(sizeof(*sh));
	struct sched_param sp = { .sched_priority = 10 };
	pthread_mutexattr_t ma;
	pid_t lo, hi;
	int rc;

	SETUP_OR_FAIL(stune_reset() || group_make("pi", 50));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(&sh->lock, &ma))
		return fail("cannot make a PI mutex");
	lo = fork();
	if (lo == 0) {
		if (pin_to_cpu(1) || group_join("pi", getpid()))
			_exit(3);
		pthread_mutex_lock(&sh->lock);
		sh->locked = 1;
		while (!sh->release)
			;
		pthread_mutex_unlock(&sh->lock);
		spin_us(30000000);
		_exit(0);
	}
	while (!sh->locked)
		sleep_us(1000);
	if (expect_state("pi", 1, 1, 50, "holder, CFS, before the RT waiter"))
		goto out;
	hi = fork();
	if (hi == 0) {
		if (pin_to_cpu(2) ||
		    sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(3);
		sh->waiting = 1;
		pthread_mutex_lock(&sh->lock);
		pthread_mutex_unlock(&sh->lock);
		_exit(0);
	}
	while (!sh->waiting)
		sleep_us(1000);
	if (expect_state("pi", 1, 0, 0, "holder boosted to RT by the waiter"))
		goto out;
	sh->release = 1;
	rc = child_wait(hi);
	if (rc) {
		fail("the RT waiter exited with %d", rc);
		goto out;
	}
	if (expect_state("pi", 1, 1, 50, "holder back to CFS"))
		goto out;
	child_kill(lo);
	if (expect_idle_view("holder killed"))
		return -1;
	return stune_reset();
out:
	sh->release = 1;
	child_kill(lo);
	return -1;
}

/*
 * CFS bandwidth: a boosted task whose cpu cgroup ran out of quota is
 * throttled, yet stays RUNNABLE for the core scheduler, so it keeps its
 * count and its CPU's boost, as a throttled task keeps its uclamp bucket.
 */
int test_throttled_keeps_boost(void)
{
	const char *cpuctl = "/tmp/cpuctl";
	char path[128], buf[512], *p;
	double end;
	long throttled = 0;
	int n = 0, low = 0, samples = 0;
	pid_t pid;

	SETUP_OR_FAIL(stune_reset() || group_make("bw", 50));
	mkdir(cpuctl, 0755);
	if (!path_exists("/tmp/cpuctl/cpu.cfs_quota_us") &&
	    mount("none", cpuctl, "cgroup", 0, "cpu"))
		return fail("cannot mount the cpu controller: %s",
			    strerror(errno));
	mkdir("/tmp/cpuctl/bw", 0755);
	if (write_file("/tmp/cpuctl/bw/cpu.cfs_period_us", "100000") ||
	    write_file("/tmp/cpuctl/bw/cpu.cfs_quota_us", "10000"))
		return fail("cannot set a 10 ms quota per 100 ms");
	pid = spinner_start(1, "bw", 30);
	snprintf(buf, sizeof(buf), "%d", pid);
	sleep_us(100000);
	if (write_file("/tmp/cpuctl/bw/cgroup.procs", buf))
		return fail("cannot move the spinner into the cpu cgroup");
	end = now_s() + 1.0;
	while (now_s() < end) {
		if (view_count("bw", 1, &n))
			return -1;
		samples++;
		low += n != 1;
		sleep_us(7000);
	}
	snprintf(path, sizeof(path), "/tmp/cpuctl/bw/cpu.stat");
	if (read_file(path, buf, sizeof(buf)) > 0) {
		p = strstr(buf, "nr_throttled ");
		if (p)
			throttled = atol(p + 13);
	}
	child_kill(pid);
	rmdir("/tmp/cpuctl/bw");
	info("throttled %ld times; count not 1 in %d of %d samples",
	     throttled, low, samples);
	if (throttled < 3)
		return fail("the spinner was throttled only %ld times", throttled);
	if (low)
		return fail("a throttled boosted task lost its count in %d of %d samples",
			    low, samples);
	if (expect_idle_view("throttled spinner killed"))
		return -1;
	return stune_reset();
}

/*
 * Thermal pressure on the big CPUs (capped at 1800 MHz of 2000, through
 * the test driver, as a cpufreq cooling device would) must not make a
 * boost-100 task a misfit everywhere: its boost asks for at most the
 * capacity the best CPU it may run on still has. The light task (2 ms every
 * 20 ms, any CPU) runs on a big CPU, and its runqueue does not record it
 * as a misfit while it runs there; the root domain's overload flag
 * (sampled every 2 ms from CPU 3, a small one) is reported.
 */
#define TH_FILE	"/sys/kernel/debug/stune_test_cpufreq/thermal"

static int th_cap(int cpu, long khz)
{
	char val[32];

	snprintf(val, sizeof(val), "%d %ld", cpu, khz);
	return write_file(TH_FILE, val);
}

struct th_shared {
	int nr;
	int cpu[EAS_PERIODS];
	long misfit[EAS_PERIODS];
	volatile int done;
};

int test_asym_thermal_fit(void)
{
	struct th_shared *sh = shared_alloc(sizeof(*sh));
	int k, rc, big = 0, misfit = 0, total = 0, polls = 0, over = 0;
	struct timespec t0;
	pid_t pid;
	long o;

	if (!eas_started())
		return fail("the kernel log does not say \"starting EAS\"");
	SETUP_OR_FAIL(stune_reset() || group_make("th", 100) || pin_to_cpu(3));
	if (th_cap(0, 1800000) || th_cap(1, 1800000))
		return fail("cannot write %s", TH_FILE);
	if (driver_sched_field(0, "capped_khz=") != 1800000 ||
	    driver_sched_field(1, "capped_khz=") != 1800000) {
		th_cap(0, 2000000);
		th_cap(1, 2000000);
		return fail("the test driver did not record the thermal cap of cpu0/cpu1");
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		if (allow_cpus_join(0, nr_online_cpus() - 1, "th"))
			_exit(3);
		for (k = 0; k < EAS_PERIODS; k++) {
			sleep_until(&t0, (long)k * WR_PERIOD_US);
			spin_us(2000);
			sh->cpu[k] = sched_getcpu();
			sh->misfit[k] = driver_sched_field(sh->cpu[k], "misfit=");
			sh->nr = k + 1;
		}
		sh->done = 1;
		_exit(0);
	}
	sleep_us(EAS_WARMUP * WR_PERIOD_US);
	while (!sh->done) {
		o = driver_sched_field(3, "overload=");
		if (o < 0)
			break;
		polls++;
		over += o > 0;
		sleep_us(2000);
	}
	rc = child_wait(pid);
	th_cap(0, 2000000);
	th_cap(1, 2000000);
	if (rc)
		return fail("the periodic task exited with %d", rc);
	for (k = EAS_WARMUP; k < sh->nr; k++) {
		total++;
		if (cpu_capacity(sh->cpu[k]) != 1024)
			continue;
		big++;
		misfit += sh->misfit[k] != 0;
	}
	info("boost 100 under thermal pressure: %d of %d activations on a big CPU, %d of them a misfit there; root domain overloaded at %d of %d polls",
	     big, total, misfit, over, polls);
	if (total < EAS_PERIODS / 2 || polls < 100)
		return fail("too few activations (%d) or polls (%d)", total, polls);
	if (big < total * 4 / 5)
		return fail("only %d of %d activations on a big CPU", big, total);
	if (misfit > big / 10)
		return fail("a misfit on the big CPU it ran on at %d of %d activations",
			    misfit, big);
	/*
	 * The root domain's overload flag is reported, not judged: 6.1
	 * recomputes it only in a load balance at the top domain, so an
	 * overload any transient set (a fork, a kworker) can stay set while
	 * the CPUs idle. The same kernel and driver gave 1 to 9 and 146 to
	 * 274 of about 780 polls from one boot to the next. What it stood
	 * for, a misfit kept on the big CPU (v1: 130 of 130 activations,
	 * 172 of 804 polls), is judged above from the task's own runqueue.
	 */
	return stune_reset();
}
