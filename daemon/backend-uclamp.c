/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The uclamp backend, for kernels without SchedTune but with
 * CONFIG_UCLAMP_TASK: a group's boost becomes the util_min clamp of each
 * of its tasks (sched_setattr() with SCHED_FLAG_UTIL_CLAMP_MIN).
 *
 * Mapping: util_min = round(boost * 1024 / 100). SchedTune adds a margin
 * proportional to the spare capacity (util + (1024 - util) * boost / 100),
 * so it raises busy tasks less and small tasks more than a floor does;
 * uclamp guarantees a floor: max(util, util_min). For a task at 20%
 * utilization, boost 50 gives 60% with SchedTune and 50% with uclamp; at
 * 80%, 90% and 80%. The root group has no equivalent (the sysctl
 * sched_util_clamp_min is a limit, not a floor), so its boost is only
 * tracked. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "backend.h"
#include "log.h"
#include "util.h"

struct uclamp_sched_attr {
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
};

#define UCLAMP_SCHED_FLAG_KEEP_ALL       0x18
#define UCLAMP_SCHED_FLAG_UTIL_CLAMP_MIN 0x20

static int sched_set_util_min(pid_t tid, unsigned util_min) {
        struct uclamp_sched_attr attr = {
                .size = sizeof(attr),
                .sched_flags = UCLAMP_SCHED_FLAG_KEEP_ALL | UCLAMP_SCHED_FLAG_UTIL_CLAMP_MIN,
                .sched_util_min = util_min,
        };

        if (syscall(SYS_sched_setattr, tid, &attr, 0) < 0)
                return -errno;
        return 0;
}

static int uclamp_probe(Backend *b) {
        _cleanup_(freep) char *p = path_join_root(b->root, "/proc/sys/kernel/sched_util_clamp_min");

        if (!p)
                return -ENOMEM;
        if (access(p, F_OK) < 0)
                return errno == ENOENT ? PROBE_FAIL : -errno;
        if (!b->set_util_min)
                b->set_util_min = sched_set_util_min;
        return PROBE_SUCCESS;
}

static int uclamp_start(Backend *b, const char *const *groups, size_t n) {
        for (size_t i = 0; i < n; i++)
                if (!journal_get_group(b->journal, groups[i], true))
                        return -ENOSPC;
        return journal_save(b->journal);
}

/* Sets util_min on every thread of a process. */
static int uclamp_set_process(Backend *b, pid_t pid, unsigned boost) {
        _cleanup_(freep) char *p = NULL;
        DIR *d;
        struct dirent *de;
        int r = 0, k;

        if (asprintf(&p, "%s/%d/task", b->proc_root, (int) pid) < 0)
                return -ENOMEM;
        d = opendir(p);
        if (!d)
                return errno == ENOENT ? -ESRCH : -errno;
        while ((de = readdir(d))) {
                unsigned tid;

                if (parse_uint(de->d_name, INT32_MAX, &tid) < 0)
                        continue;
                k = b->set_util_min((pid_t) tid, uclamp_from_boost(boost));
                if (k < 0 && k != -ESRCH && r == 0)
                        r = k;
        }
        closedir(d);
        return r;
}

static int uclamp_apply(Backend *b, const char *group, unsigned boost) {
        Journal *j = b->journal;
        JournalGroup *g = journal_get_group(j, group, true);

        if (!g)
                return -ENOMEM;
        g->wrote = boost;
        g->has_wrote = true;
        for (size_t i = 0; i < j->n_placed; i++) {
                int r;

                if (!streq(j->placed[i].group, group))
                        continue;
                if (process_id_is_current(b->proc_root, &j->placed[i].id) <= 0)
                        continue;
                r = uclamp_set_process(b, j->placed[i].id.pid, boost);
                if (r < 0)
                        log_warning_errno(r, "Failed to clamp PID %d, ignoring: %m",
                                          (int) j->placed[i].id.pid);
        }
        return journal_save(j);
}

static int uclamp_attach(Backend *b, const char *group, const ProcessId *id) {
        Journal *j = b->journal;
        JournalGroup *g = journal_get_group(j, group, false);
        int r;

        r = uclamp_set_process(b, id->pid, streq(group, "root") || !g ? 0 : g->wrote);
        if (r < 0)
                return r;
        if (streq(group, "root"))
                journal_pid_remove(&j->placed, &j->n_placed, id->pid);
        else {
                r = journal_pid_set(&j->placed, &j->n_placed, id, group);
                if (r < 0)
                        return r;
        }
        return journal_save(j);
}

static int uclamp_restore(Backend *b) {
        Journal *j = b->journal;

        for (size_t i = 0; i < j->n_placed; i++)
                if (process_id_is_current(b->proc_root, &j->placed[i].id) > 0)
                        (void) uclamp_set_process(b, j->placed[i].id.pid, 0);
        journal_clear_kernel(j);
        return journal_save(j);
}

const BackendVTable backend_uclamp = {
        .name = "uclamp",
        .probe = uclamp_probe,
        .start = uclamp_start,
        .apply = uclamp_apply,
        .attach = uclamp_attach,
        .restore = uclamp_restore,
};
