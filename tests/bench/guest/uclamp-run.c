// SPDX-License-Identifier: GPL-2.0
/*
 * uclamp-run MIN COMMAND...: runs COMMAND with uclamp.min MIN (0..1024)
 * set on itself through sched_setattr(); its children inherit it at fork.
 * The benchmark's peer configuration: mainline's per-task clamp.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};

#define SCHED_FLAG_KEEP_POLICY 0x08
#define SCHED_FLAG_KEEP_PARAMS 0x10
#define SCHED_FLAG_UTIL_CLAMP_MIN 0x20

int main(int argc, char **argv)
{
	struct attr a = { .size = sizeof(a) };
	char *end;
	long v;

	if (argc < 3)
		return 2;
	v = strtol(argv[1], &end, 10);
	if (*end || v < 0 || v > 1024) {
		fprintf(stderr, "uclamp-run: bad value %s\n", argv[1]);
		return 2;
	}
	a.sched_flags = SCHED_FLAG_KEEP_POLICY | SCHED_FLAG_KEEP_PARAMS | SCHED_FLAG_UTIL_CLAMP_MIN;
	a.sched_util_min = (uint32_t)v;
	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0) {
		fprintf(stderr, "uclamp-run: sched_setattr: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "uclamp-run: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
