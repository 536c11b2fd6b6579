/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The minimum utilization of one thread (uclamp.min, 0..1024), what a work
 * session's output becomes. Two implementations behind one table:
 *
 *   syscall  on the host (root NULL or "/"): sched_getattr() and
 *            sched_setattr() with SCHED_FLAG_UTIL_CLAMP_MIN; the kernel
 *            needs CONFIG_UCLAMP_TASK;
 *   files    under a root prefix (tests): the file proc/TID/util_min,
 *            which a test creates for each thread it lets exist; a
 *            folder proc/TID without it is a kernel without uclamp.
 *
 * They do not log; they return negative errno: -ESRCH for a thread that is
 * gone, -EOPNOTSUPP for a kernel without uclamp, -EINVAL above 1024. */
#pragma once

#include <sys/types.h>

#define THREAD_CLAMP_MAX 1024U

typedef struct ThreadClampOps {
        const char *name;
        int (*get)(const char *root, pid_t tid, unsigned *ret);
        /* THREAD_CLAMP_RESET gives the thread the system's default back
         * (the kernel's util_min -1), where a value of its own would stop
         * it from following its cgroup's. */
        int (*set)(const char *root, pid_t tid, unsigned util_min);
} ThreadClampOps;

#define THREAD_CLAMP_RESET ((unsigned) -1)

extern const ThreadClampOps thread_clamp_syscall;
extern const ThreadClampOps thread_clamp_files;

/* The implementation for root (NULL or "/": the syscalls). */
const ThreadClampOps *thread_clamp_ops(const char *root);
