/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* task-boost TID...: prints each thread's own SchedTune boost, as
 * sched_getattr() reports it on a kernel with the 6.12 series (struct
 * sched_attr VER2, sched_util_boost), one per line. Exits 1 if a thread
 * is gone or the kernel has no per-task boost. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct attr_v2 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
	uint32_t sched_util_boost;
	uint32_t reserved;
};

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct attr_v2 a;

		memset(&a, 0, sizeof(a));
		if (syscall(SYS_sched_getattr, atoi(argv[i]), &a, sizeof(a), 0) < 0) {
			fprintf(stderr, "task-boost: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (a.size < sizeof(a)) {
			fprintf(stderr, "task-boost: no per-task boost (sched_attr size %u)\n", a.size);
			return 1;
		}
		printf("%u\n", a.sched_util_boost);
	}
	return 0;
}
