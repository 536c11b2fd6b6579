// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * duty: a periodic task that is busy BUSY_MS out of every PERIOD_MS on one
 * CPU, for DURATION_MS, and at the end of each busy part prints the
 * frequency its CPU runs at ("EPOCH_MS KHZ", wall-clock milliseconds, so
 * that a script can line the samples up with what it did). Sampled by the
 * task itself while it is RUNNABLE, the frequency reflects the boost of
 * its group; sampled from elsewhere it would see an idle CPU. With
 * LATEST_FILE, each sample ("EPOCH_MS KHZ") also replaces that file's
 * content (by rename), for a sampler or a check that reads it without
 * forking. DUTY_TAG_FILE adds a third column:
 * the number in that file after each sample (a group's schedtune.boost),
 * or with DUTY_TAG_FILE=self the task's own boost from sched_getattr()
 * (the 6.12 series' per-task boost).
 *
 * Usage: duty CPU BUSY_MS PERIOD_MS DURATION_MS [LATEST_FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sched-attr.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static long long epoch_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void write_latest(const char *path, long long ms, long khz)
{
	char tmp[256], buf[64];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f)
		return;
	snprintf(buf, sizeof(buf), "%lld %ld\n", ms, khz);
	fputs(buf, f);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static long read_khz(int cpu)
{
	char path[96];
	long khz = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &khz) != 1)
		khz = -1;
	fclose(f);
	return khz;
}

static long read_tag(const char *path)
{
	struct boostd_sched_attr a;
	long v = -1;
	FILE *f;

	if (strcmp(path, "self") == 0) {
		memset(&a, 0, sizeof(a));
		if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) < 0 || a.size < sizeof(a))
			return -1;
		return a.sched_util_boost;
	}
	f = fopen(path, "re");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long long start, period_start, end;
	long busy, period, duration;
	cpu_set_t set;
	int cpu;

	const char *latest = NULL;
	/* DUTY_TAG_FILE: a number read after each sample, a third column. */
	const char *tag = getenv("DUTY_TAG_FILE");

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s CPU BUSY_MS PERIOD_MS DURATION_MS [LATEST_FILE]\n",
			argv[0]);
		return 2;
	}
	cpu = atoi(argv[1]);
	busy = atol(argv[2]);
	period = atol(argv[3]);
	duration = atol(argv[4]);
	if (argc == 6)
		latest = argv[5];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("duty: sched_setaffinity");
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	start = now_ms();
	end = start + duration;
	for (period_start = start; period_start < end; period_start += period) {
		long long t = now_ms();
		struct timespec ts;
		long long wake;

		while (now_ms() - t < busy)
			;
		long khz = read_khz(cpu);
		long long ms = epoch_ms();

		if (tag)
			printf("%lld %ld %ld\n", ms, khz, read_tag(tag));
		else
			printf("%lld %ld\n", ms, khz);
		if (latest)
			write_latest(latest, ms, khz);
		wake = period_start + period;
		t = now_ms();
		if (wake > t) {
			ts.tv_sec = (wake - t) / 1000;
			ts.tv_nsec = ((wake - t) % 1000) * 1000000L;
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
	}
	return 0;
}
