// SPDX-License-Identifier: GPL-2.0
/*
 * uclamp-run MIN COMMAND...: runs COMMAND with uclamp.min MIN (0..1024)
 * set on itself through sched_setattr(); its children inherit it at fork.
 * The benchmark's peer configuration: mainline's per-task clamp.
 *
 * uclamp-run --boost BOOST COMMAND...: the same with the task's own
 * SchedTune boost (0..100) of the 6.12 series (SCHED_FLAG_UTIL_BOOST,
 * struct sched_attr of SCHED_ATTR_VER2_SIZE): per-task boosting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched-attr.h"

int main(int argc, char **argv)
{
	struct boostd_sched_attr a = { .size = SCHED_ATTR_VER1_SIZE };
	int boost = argc > 1 && !strcmp(argv[1], "--boost");
	long v, max = boost ? 100 : 1024;
	char *end;

	argv += boost;
	argc -= boost;
	if (argc < 3)
		return 2;
	v = strtol(argv[1], &end, 10);
	if (*end || v < 0 || v > max) {
		fprintf(stderr, "uclamp-run: bad value %s\n", argv[1]);
		return 2;
	}
	a.sched_flags = BOOSTD_SCHED_FLAG_KEEP_ALL;
	if (boost) {
		a.size = SCHED_ATTR_VER2_SIZE;
		a.sched_flags |= BOOSTD_SCHED_FLAG_UTIL_BOOST;
		a.sched_util_boost = (unsigned int)v;
	} else {
		a.sched_flags |= BOOSTD_SCHED_FLAG_UTIL_CLAMP_MIN;
		a.sched_util_min = (unsigned int)v;
	}
	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0) {
		fprintf(stderr, "uclamp-run: sched_setattr: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "uclamp-run: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
