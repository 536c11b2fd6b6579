// SPDX-License-Identifier: GPL-2.0
/*
 * SchedTune guest tests: thousands of tasks forking, migrating, moving
 * between groups and exiting on every CPU while boosts change and groups
 * come and go; afterwards no count is left behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stune.h"
#include "tests.h"

#define STRESS_SECONDS	10.0	/* at least */
#define STRESS_MAX_S	60.0	/* at most, to reach MIN_TASKS */
#define MIN_TASKS	2000
#define NR_FIXED	6	/* groups s0..s5, always there */
#define NR_CHURN	4	/* groups t0..t3, made and removed */

struct stress_shared {
	volatile int stop;
	volatile long forks;
	volatile long moves;
	volatile long boosts;
	volatile long mkdirs;
	volatile long rmdirs;
};

static struct stress_shared *sh;

static const char *random_group(unsigned int *seed)
{
	static const char *const names[] = {
		"/", "s0", "s1", "s2", "s3", "s4", "s5", "t0", "t1", "t2", "t3",
	};

	return names[rand_r(seed) % (sizeof(names) / sizeof(names[0]))];
}

static void random_cpu(unsigned int *seed)
{
	cpu_set_t set;
	int n = nr_online_cpus();

	CPU_ZERO(&set);
	if (rand_r(seed) % 4) {
		CPU_SET(rand_r(seed) % n, &set);
	} else {
		for (int i = 0; i < n; i++)
			CPU_SET(i, &set);
	}
	sched_setaffinity(0, sizeof(set), &set);
}

/* A short life: run, migrate, sleep, maybe change group, exit. */
static void short_task(unsigned int seed)
{
	int i, n = 1 + rand_r(&seed) % 4;

	for (i = 0; i < n; i++) {
		if (rand_r(&seed) % 2)
			random_cpu(&seed);
		spin_us(rand_r(&seed) % 1500);
		if (rand_r(&seed) % 3 == 0)
			group_join(random_group(&seed), getpid());
		if (rand_r(&seed) % 2)
			sleep_us(rand_r(&seed) % 2000);
	}
	_exit(0);
}

static void forker(int id)
{
	unsigned int seed = 1000 + id;
	int live = 0;
	pid_t pid;

	random_cpu(&seed);
	while (!sh->stop) {
		while (live < 6) {
			pid = fork();
			if (pid < 0)
				break;
			if (pid == 0)
				short_task(seed ^ (unsigned int)getpid());
			live++;
			__sync_fetch_and_add(&sh->forks, 1);
			if (rand_r(&seed) % 2 &&
			    !group_join(random_group(&seed), pid))
				__sync_fetch_and_add(&sh->moves, 1);
		}
		pid = waitpid(-1, NULL, 0);
		if (pid > 0)
			live--;
		if (rand_r(&seed) % 8 == 0) {
			group_join(random_group(&seed), getpid());
			random_cpu(&seed);
		}
	}
	while (waitpid(-1, NULL, 0) > 0)
		;
	_exit(0);
}

static void booster(void)
{
	unsigned int seed = 7;
	char buf[16];
	const char *g;

	while (!sh->stop) {
		g = random_group(&seed);
		if (!strcmp(g, "/") && rand_r(&seed) % 2) {
			snprintf(buf, sizeof(buf), "%d", rand_r(&seed) % 101);
			write_file(STUNE_SYSCTL, buf);
		} else {
			group_set_boost(g, rand_r(&seed) % 101);
		}
		__sync_fetch_and_add(&sh->boosts, 1);
		sleep_us(rand_r(&seed) % 3000);
	}
	_exit(0);
}

static void churner(void)
{
	unsigned int seed = 11;
	char name[8];

	while (!sh->stop) {
		snprintf(name, sizeof(name), "t%d", rand_r(&seed) % NR_CHURN);
		if (rand_r(&seed) % 2) {
			if (!mkdir(group_dir(name), 0755)) {
				__sync_fetch_and_add(&sh->mkdirs, 1);
				group_set_boost(name, rand_r(&seed) % 101);
			}
		} else if (!rmdir(group_dir(name))) {
			__sync_fetch_and_add(&sh->rmdirs, 1);
		} else if (errno == EBUSY && rand_r(&seed) % 2) {
			if (!group_remove(name))
				__sync_fetch_and_add(&sh->rmdirs, 1);
		}
		sleep_us(rand_r(&seed) % 20000);
	}
	_exit(0);
}

static pid_t start(void (*fn)(int), int arg)
{
	pid_t pid = fork();

	if (pid == 0)
		fn(arg);
	return pid;
}

static void booster_fn(int arg)
{
	(void)arg;
	booster();
}

static void churner_fn(int arg)
{
	(void)arg;
	churner();
}

int test_stress(void)
{
	pid_t pids[16];
	int i, n = 0, cpus = nr_online_cpus();
	double t0;
	char name[8];

	if (stune_reset())
		return -1;
	for (i = 0; i < NR_FIXED; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		if (group_make(name, 15 * i + 10))
			return fail("cannot make group %s", name);
	}
	sh = shared_alloc(sizeof(*sh));
	for (i = 0; i < cpus + 2 && n < 12; i++)
		pids[n++] = start(forker, i);
	pids[n++] = start(booster_fn, 0);
	pids[n++] = start(churner_fn, 0);
	t0 = now_s();
	while (now_s() - t0 < STRESS_MAX_S &&
	       (now_s() - t0 < STRESS_SECONDS || sh->forks < MIN_TASKS))
		sleep_us(100000);
	sh->stop = 1;
	for (i = 0; i < n; i++)
		if (child_wait(pids[i]) != 0)
			return fail("stress process %d failed", i);
	info("stress: %.1f s, %ld tasks forked, %ld moves, %ld boost writes, %ld mkdirs, %ld rmdirs",
	     now_s() - t0, sh->forks, sh->moves, sh->boosts, sh->mkdirs,
	     sh->rmdirs);
	if (sh->forks < MIN_TASKS)
		return fail("only %ld tasks forked in %.0f s", sh->forks,
			    STRESS_MAX_S);
	if (sh->boosts < 100 || sh->mkdirs < 5 || sh->rmdirs < 5)
		return fail("too little churn: %ld boosts, %ld mkdirs, %ld rmdirs",
			    sh->boosts, sh->mkdirs, sh->rmdirs);

	/* Every task is gone: no count may be left, boost is root's. */
	if (group_set_boost("/", 5))
		return fail("cannot set root boost 5");
	for (i = 0; i < NR_FIXED; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		group_set_boost(name, 100);
	}
	if (expect_idle_view("after the stress"))
		return -1;
	return stune_reset();
}

/*
 * The static key goes on while hundreds of tasks of two boost-0 groups
 * sleep and wake on every CPU, so that some are counted at an enqueue
 * site already on and leave through a dequeue site still off; then every
 * task is moved between the groups, many of them asleep, and killed. No
 * count may be taken that was not given (a WARNING), and every count must
 * be back at zero. Must be the first test of its boot to set a boost.
 */
#define KO_TASKS	100

static void ko_task(unsigned int seed)
{
	for (;;) {
		seed = seed * 1103515245 + 12345;
		spin_us(50 + (seed >> 16) % 200);
		sleep_us(100 + (seed >> 8) % 2000);
	}
}

int test_key_on_sleepers(void)
{
	static pid_t pids[KO_TASKS];
	struct stune_view v;
	int i, round, err = 0;
	char val[16];

	SETUP_OR_FAIL(stune_reset());
	if (stune_view_read(&v))
		return -1;
	if (v.used)
		return fail("the key is on already: a boost was set earlier in this boot");
	SETUP_OR_FAIL(group_make("ka", 0) || group_make("kb", 0));
	for (i = 0; i < KO_TASKS; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (group_join(i & 1 ? "ka" : "kb", getpid()))
				_exit(3);
			ko_task(i + 1);
		}
		if (pids[i] < 0)
			return fail("fork: %s", strerror(errno));
	}
	sleep_us(300000);
	/* The key goes on here, with most of the tasks asleep. */
	SETUP_OR_FAIL(group_set_boost("ka", 30));
	for (round = 0; round < 4 && !err; round++) {
		for (i = 0; i < KO_TASKS && !err; i++) {
			snprintf(val, sizeof(val), "%d", pids[i]);
			err = write_file(group_dir((i + round) & 1 ? "kb/cgroup.procs" :
						   "ka/cgroup.procs"), val);
		}
	}
	for (i = 0; i < KO_TASKS; i++)
		child_kill(pids[i]);
	if (err)
		return fail("cannot move a task between the groups: %s",
			    strerror(-err));
	if (stune_view_read(&v))
		return -1;
	if (v.used != 1)
		return fail("the key is off after the first non-zero boost");
	if (expect_idle_view("every task killed"))
		return -1;
	return stune_reset();
}
