// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * frame-loop: a frame-driven client of boostd's work sessions, pinned to
 * one CPU. Each frame starts on a 60 Hz clock (the target, 16.67 ms) and
 * is BUSY_US of real busy time, what the scheduler sees, standing for a
 * frame of FIXED_MS that no CPU frequency changes (waiting for a GPU, say)
 * plus CPU work that takes (16.67 - FIXED_MS) ms at MHZ: its modelled
 * duration, FIXED_MS + that work over the frequency its CPU was asked for
 * when the busy part ended (scaling_cur_freq of the test cpufreq driver),
 * is what it reports. QEMU runs a CPU at one speed whatever its frequency,
 * so the duration is modelled, as the benchmarks model time. It opens a
 * session for its own thread, reports every BATCH frames, and prints one
 * line per report:
 *
 *   report N PHASE FRAME_MS KHZ UTIL_MIN BOOST GROUP
 *
 * with UTIL_MIN its own uclamp.min (sched_getattr()) after the report,
 * BOOST the session's output (its Boost property) and GROUP the schedtune
 * group its thread is in ("root" for the top, "-" without SchedTune):
 * boostd's pool group, without uclamp.
 * After the first half of FRAMES its work becomes LIGHT times as much.
 * It starts after half a second of sleep, so that its CPU is idle, and
 * prints "late N" at the end: the frames that started a whole period late
 * (the clock then moves along). Exits when done, closing the session by
 * leaving the bus.
 *
 * Usage: frame-loop CPU FRAMES BATCH FIXED_MS MHZ LIGHT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define TARGET_NS 16666667ULL
/* Little real work, so that the CPU's own utilization stays far below what
 * the session asks for: the frequency follows the session. */
#define BUSY_US 500

struct attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
	uint32_t util_min, util_max;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static long cur_khz(int cpu)
{
	char path[128];
	long khz = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &khz) != 1)
		khz = -1;
	fclose(f);
	return khz;
}

static unsigned util_min(void)
{
	struct attr a = { 0 };

	if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) < 0)
		return 9999;
	return a.util_min;
}

static void die(const char *what, int r)
{
	fprintf(stderr, "frame-loop: %s: %s\n", what, strerror(r < 0 ? -r : r));
	exit(1);
}

/* The schedtune group of this thread, from its line in cgroup. */
static void stune_group(char *buf, size_t size)
{
	char p[64], line[512];
	FILE *f;

	snprintf(buf, size, "-");
	snprintf(p, sizeof(p), "/proc/self/task/%d/cgroup", (int) gettid());
	f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strstr(line, ":schedtune:/");

		if (!c)
			continue;
		c += strlen(":schedtune:/");
		c[strcspn(c, "\n")] = '\0';
		snprintf(buf, size, "%s", *c ? c : "root");
		break;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	uint64_t stamps[64], actual[64], start, next;
	int cpu, frames, batch, r, reports = 0, late = 0;
	double fixed_ms, mhz, light, work;
	const char *path;
	sd_bus *bus = NULL;
	char *session, group[64];
	uint32_t boost;
	cpu_set_t set;

	if (argc != 7) {
		fprintf(stderr, "usage: frame-loop CPU FRAMES BATCH FIXED_MS MHZ LIGHT\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	frames = atoi(argv[2]);
	batch = atoi(argv[3]);
	fixed_ms = atof(argv[4]);
	mhz = atof(argv[5]);
	light = atof(argv[6]);
	if (batch < 1 || batch > 64 || frames < 2 * batch)
		die("bad arguments", EINVAL);
	/* in MHz x ms: the CPU part of a frame takes work / MHz ms */
	work = (TARGET_NS / 1e6 - fixed_ms) * mhz;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity", errno);

	r = sd_bus_open_system(&bus);
	if (r < 0)
		die("system bus", r);
	r = sd_bus_message_new_method_call(bus, &m, "org.boostd.Boost1", "/org/boostd/Boost1",
					   "org.boostd.Boost1", "CreateSession");
	if (r >= 0)
		r = sd_bus_message_append(m, "au", 1, (uint32_t) gettid());
	if (r >= 0)
		r = sd_bus_message_append(m, "t", TARGET_NS);
	if (r >= 0)
		r = sd_bus_call(bus, m, 0, &e, &reply);
	if (r < 0) {
		fprintf(stderr, "frame-loop: CreateSession: %s\n", e.message ?: strerror(-r));
		return 1;
	}
	r = sd_bus_message_read(reply, "o", &path);
	if (r < 0)
		die("CreateSession's reply", r);
	session = strdup(path);
	m = sd_bus_message_unref(m);
	reply = sd_bus_message_unref(reply);
	printf("session %s util_min %u\n", session, util_min());
	fflush(stdout);

	/* an idle CPU first, so that the first frames run at what the
	 * session asks for and not at what came before */
	usleep(500000);
	start = now_ns();
	for (int f = 0; f < frames; f++) {
		uint64_t t0 = start + (uint64_t) f * TARGET_NS;
		struct timespec ts = { (time_t) (t0 / 1000000000ULL), (long) (t0 % 1000000000ULL) };
		long khz;
		double ms;

		if (f == frames / 2)
			work *= light;
		/* a frame that starts a whole period late (a slow guest) moves
		 * the clock along instead of running frames back to back */
		if (now_ns() > t0 + TARGET_NS) {
			start += now_ns() - t0;
			t0 = start + (uint64_t) f * TARGET_NS;
			late++;
		} else
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		next = t0 + BUSY_US * 1000ULL;
		while (now_ns() < next)
			;
		khz = cur_khz(cpu);
		if (khz <= 0)
			die("scaling_cur_freq", EIO);
		ms = fixed_ms + work / (khz / 1000.0);
		stamps[f % batch] = now_ns();
		actual[f % batch] = (uint64_t) (ms * 1e6);
		if ((f + 1) % batch)
			continue;
		r = sd_bus_message_new_method_call(bus, &m, "org.boostd.Boost1", session,
						   "org.boostd.Session1", "ReportActualWorkDurations");
		if (r >= 0)
			r = sd_bus_message_open_container(m, 'a', "(tt)");
		for (int i = 0; r >= 0 && i < batch; i++)
			r = sd_bus_message_append(m, "(tt)", stamps[i], actual[i]);
		if (r >= 0)
			r = sd_bus_message_close_container(m);
		if (r >= 0)
			r = sd_bus_call(bus, m, 0, &e, NULL);
		if (r < 0) {
			fprintf(stderr, "frame-loop: report: %s\n", e.message ?: strerror(-r));
			return 1;
		}
		m = sd_bus_message_unref(m);
		r = sd_bus_get_property_trivial(bus, "org.boostd.Boost1", session, "org.boostd.Session1",
						"Boost", &e, 'u', &boost);
		if (r < 0) {
			fprintf(stderr, "frame-loop: Boost: %s\n", e.message ?: strerror(-r));
			return 1;
		}
		stune_group(group, sizeof(group));
		printf("report %d %s %.2f %ld %u %u %s\n", ++reports, f < frames / 2 ? "heavy" : "light", ms,
		       khz, util_min(), boost, group);
		fflush(stdout);
	}
	printf("late %d\n", late);
	free(session);
	sd_bus_flush_close_unref(bus);
	return 0;
}
