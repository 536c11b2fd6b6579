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

#include "sched-attr.h"


int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct boostd_sched_attr a;

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
