// SPDX-License-Identifier: GPL-2.0
/*
 * SchedTune guest tests: the list of tests and the runner.
 *
 *   stune-test --list BOOT   names of the tests for boot "smp" or "asym"
 *   stune-test NAME          run one test, print "TEST NAME: PASS" or
 *                            "TEST NAME: FAIL <reason>"
 *
 * Each test runs in its own process group with a time limit, so a crash or
 * a hang still gives its FAIL line and leaves no task behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stune.h"
#include "tests.h"

#define BOOT_SMP	1
#define BOOT_ASYM	2
#define BOOT_BENCH	4	/* tests/bench/bench-kernel runs these */

struct stune_test {
	const char *name;
	int boots;
	int (*fn)(void);
	int timeout_s;
};

#define STUNE_TEST_ENTRY(n, b, t) { #n, b, test_##n, t }

static const struct stune_test tests[] = {
	/* First: no boost may have been set before it in its boot. */
	STUNE_TEST_ENTRY(key_off_until_boost, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(sysctl_default, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(sysctl_range, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(sysctl_bad_writes, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_listed, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_mount, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(root_is_sysctl, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_boost_range, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_bad_writes, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_no_grandchild, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_group_limit, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(cgroup_hold_range, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cgroup_prefer_fit_range, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(debugfs_format, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(tracepoints_bare, BOOT_SMP, 30),
	STUNE_TEST_ENTRY(cpufreq_driver, BOOT_SMP | BOOT_ASYM, 30),
	STUNE_TEST_ENTRY(freq_baseline_root, BOOT_SMP | BOOT_ASYM, 60),
	STUNE_TEST_ENTRY(freq_baseline_uclamp, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(cpu_boost_runnable, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(cpu_boost_max_wins, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(cpu_boost_group_write, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(cpu_boost_move_runnable, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(cpu_boost_migrate, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(save_restore_keeps_count, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(class_switch, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(threadgroup_attach, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(hotplug_counted, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(pi_boosted_holder, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(throttled_keeps_boost, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(wakeup_response_local, BOOT_SMP, 90),
	STUNE_TEST_ENTRY(wakeup_response_remote, BOOT_SMP, 90),
	STUNE_TEST_ENTRY(wakeup_response_uclamp_local, BOOT_SMP, 90),
	STUNE_TEST_ENTRY(wakeup_response_uclamp_remote, BOOT_SMP, 90),
	STUNE_TEST_ENTRY(bypass_never_lowers, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(bypass_never_lowers_uclamp, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(trace_config_events, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(freq_boost_0, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_boost_100, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_boost_10, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_boost_30, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_boost_50, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_boost_70, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_boost_75, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_back_to_root, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_after_exit, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_max_wins, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(freq_sleeper_no_boost, BOOT_SMP, 120),
	STUNE_TEST_ENTRY(hold_boost_window, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(hold_periodic, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(hold_then_plain, BOOT_SMP, 60),
	STUNE_TEST_ENTRY(hold_rmdir, BOOT_SMP, 60),
	/* Reloads the test cpufreq driver, and loads it back as it was. */
	STUNE_TEST_ENTRY(shared_policies, BOOT_SMP, 90),
	STUNE_TEST_ENTRY(stress, BOOT_SMP, 300),
	/* First of its boot to set a boost. */
	STUNE_TEST_ENTRY(key_on_sleepers, BOOT_ASYM, 120),
	STUNE_TEST_ENTRY(asym_capacity, BOOT_ASYM, 30),
	STUNE_TEST_ENTRY(asym_little_boost_100, BOOT_ASYM, 120),
	STUNE_TEST_ENTRY(asym_little_boost_50, BOOT_ASYM, 120),
	STUNE_TEST_ENTRY(asym_trace_little, BOOT_ASYM, 180),
	STUNE_TEST_ENTRY(asym_eas_task_boost, BOOT_ASYM, 60),
	STUNE_TEST_ENTRY(asym_prefer_fit, BOOT_ASYM, 90),
	STUNE_TEST_ENTRY(asym_thermal_fit, BOOT_ASYM, 60),
	/* The benchmark's: they report figures and judge nothing. */
	STUNE_TEST_ENTRY(bench_response_group, BOOT_BENCH, 180),
	STUNE_TEST_ENTRY(bench_response_uclamp, BOOT_BENCH, 180),
};

#define NR_TESTS ((int)(sizeof(tests) / sizeof(tests[0])))

static pid_t test_child;

static void on_alarm(int sig)
{
	(void)sig;
	if (test_child > 0)
		kill(-test_child, SIGKILL);
}

static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

static int run_test(const struct stune_test *t)
{
	char reason[sizeof(fail_reason)] = "";
	int fds[2], status, n, len = 0, rc;
	struct sigaction sa = { .sa_handler = on_alarm };

	if (pipe(fds))
		return 2;
	fflush(NULL);
	test_child = fork();
	if (test_child < 0)
		return 2;
	if (test_child == 0) {
		close(fds[0]);
		setpgid(0, 0);
		rc = t->fn();
		if (rc && !fail_reason[0])
			fail("failed without a reason");
		if (rc && write(fds[1], fail_reason, strlen(fail_reason)) < 0)
			_exit(2);
		/* Leave no task of the test behind. */
		signal(SIGTERM, SIG_IGN);
		kill(0, SIGTERM);
		_exit(rc ? 1 : 0);
	}
	close(fds[1]);
	setpgid(test_child, test_child);
	sigaction(SIGALRM, &sa, NULL);
	alarm(t->timeout_s);
	while ((n = read(fds[0], reason + len, sizeof(reason) - 1 - len)) > 0)
		len += n;
	reason[len] = '\0';
	while (waitpid(test_child, &status, 0) < 0 && errno == EINTR)
		;
	alarm(0);
	kill(-test_child, SIGKILL);
	one_line(reason);
	if (WIFSIGNALED(status)) {
		printf("TEST %s: FAIL killed by signal %d%s\n", t->name,
		       WTERMSIG(status),
		       WTERMSIG(status) == SIGKILL ? " (time limit?)" : "");
		return 1;
	}
	if (WEXITSTATUS(status) == 0 && !reason[0]) {
		printf("TEST %s: PASS\n", t->name);
		return 0;
	}
	printf("TEST %s: FAIL %s\n", t->name,
	       reason[0] ? reason : "exited without a reason");
	return 1;
}

int main(int argc, char **argv)
{
	int i, boots;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "--list")) {
		boots = !strcmp(argv[2], "asym") ? BOOT_ASYM : BOOT_SMP;
		for (i = 0; i < NR_TESTS; i++)
			if (tests[i].boots & boots)
				printf("%s\n", tests[i].name);
		return 0;
	}
	if (argc == 2) {
		for (i = 0; i < NR_TESTS; i++)
			if (!strcmp(argv[1], tests[i].name))
				return run_test(&tests[i]);
		fprintf(stderr, "stune-test: no test %s\n", argv[1]);
		return 2;
	}
	fprintf(stderr, "usage: stune-test --list smp|asym | stune-test NAME\n");
	return 2;
}
