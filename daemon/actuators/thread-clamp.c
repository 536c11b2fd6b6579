/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A thread's minimum utilization: the syscalls, or files under a root. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "sched-attr.h"
#include "thread-clamp.h"
#include "util.h"

static int syscall_get(const char *root, pid_t tid, unsigned *ret) {
        struct boostd_sched_attr attr = {};

        (void) root;
        if (tid <= 0)
                return -ESRCH;
        if (syscall(SYS_sched_getattr, tid, &attr, SCHED_ATTR_VER1_SIZE, 0) < 0)
                return -errno;
        /* 0 from a kernel without uclamp, which leaves the fields alone */
        *ret = attr.sched_util_min;
        return 0;
}

static int syscall_set(const char *root, pid_t tid, unsigned util_min) {
        struct boostd_sched_attr attr = {
                .size = SCHED_ATTR_VER1_SIZE,
                .sched_flags = BOOSTD_SCHED_FLAG_KEEP_ALL | BOOSTD_SCHED_FLAG_UTIL_CLAMP_MIN,
                .sched_util_min = util_min,
        };

        (void) root;
        if (tid <= 0)
                return -ESRCH;
        if (util_min > THREAD_CLAMP_MAX && util_min != THREAD_CLAMP_RESET)
                return -EINVAL;
        if (syscall(SYS_sched_setattr, tid, &attr, 0) < 0)
                return -errno;
        return 0;
}

const ThreadClampOps thread_clamp_syscall = {
        .name = "syscall",
        .get = syscall_get,
        .set = syscall_set,
};

static char *files_path(const char *root, pid_t tid) {
        char rel[64];

        snprintf(rel, sizeof(rel), "/proc/%d/util_min", (int) tid);
        return path_join_root(root, rel);
}

/* A missing file: the thread is gone, or with its folder there, the
 * kernel has no uclamp. */
static int files_missing(const char *root, pid_t tid) {
        _cleanup_(freep) char *d = NULL;
        char rel[64];

        snprintf(rel, sizeof(rel), "/proc/%d", (int) tid);
        d = path_join_root(root, rel);
        if (!d)
                return -ENOMEM;
        return access(d, F_OK) == 0 ? -EOPNOTSUPP : -ESRCH;
}

static int files_get(const char *root, pid_t tid, unsigned *ret) {
        _cleanup_(freep) char *p = files_path(root, tid);
        _cleanup_(fclosep) FILE *f = NULL;
        unsigned v;

        if (!p)
                return -ENOMEM;
        if (tid <= 0)
                return -ESRCH;
        f = fopen(p, "re");
        if (!f && errno == ENOENT && files_missing(root, tid) == -EOPNOTSUPP) {
                *ret = 0;       /* as sched_getattr() says without uclamp */
                return 0;
        }
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        if (fscanf(f, "%u", &v) != 1 || v > THREAD_CLAMP_MAX)
                return -EIO;
        *ret = v;
        return 0;
}

static int files_set(const char *root, pid_t tid, unsigned util_min) {
        _cleanup_(freep) char *p = files_path(root, tid);
        _cleanup_(fclosep) FILE *f = NULL;

        if (!p)
                return -ENOMEM;
        if (tid <= 0)
                return -ESRCH;
        if (util_min > THREAD_CLAMP_MAX && util_min != THREAD_CLAMP_RESET)
                return -EINVAL;
        /* the file must exist: a thread that is gone has none */
        f = fopen(p, "r+e");
        if (!f)
                return errno == ENOENT ? files_missing(root, tid) : -errno;
        /* the reset reads back as the default, 0 */
        if (fprintf(f, "%u\n", util_min == THREAD_CLAMP_RESET ? 0 : util_min) < 0 ||
            ftruncate(fileno(f), ftell(f)) < 0)
                return -errno;
        if (fflush(f) != 0)
                return -errno;
        return 0;
}

const ThreadClampOps thread_clamp_files = {
        .name = "files",
        .get = files_get,
        .set = files_set,
};

const ThreadClampOps *thread_clamp_ops(const char *root) {
        if (!root || streq(root, "/"))
                return &thread_clamp_syscall;
        return &thread_clamp_files;
}
