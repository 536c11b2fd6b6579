/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune2 backend, for the 6.12 SchedTune series (cgroup v2, per
 * task): a class's boost becomes each placed process's threads' own boost
 * (sched_setattr() with SCHED_FLAG_UTIL_BOOST), the root class's the
 * sysctl kernel.sched_cfs_boost. No process leaves its unit's cgroup: the
 * kernel combines a task's own boost with its cgroup's cpu.boost and
 * cpu.boost.max as uclamp combines clamps (clamped between them), so a
 * unit's cgroup keeps what its administrator gave it, and a delegated
 * subtree's limit holds for what boostd gives.
 *
 * A unit of the system manager that a Unit=/Slice= rule gives a class
 * also gets the class's boost in its own cgroup's cpu.boost, and the
 * slices above it enough for it (unit-boost.c).
 *
 * A thread created later inherits its parent's own boost (the kernel's
 * fork rule), so a placed process's new threads and children follow it
 * without boostd. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "log.h"
#include "sched-attr.h"
#include "unit-boost.h"
#include "util.h"

#define SYSCTL_BOOST "/proc/sys/kernel/sched_cfs_boost"

typedef struct Schedtune2 {
        TaskSetBoost set_boost;         /* a seam for tests */
} Schedtune2;

static void schedtune2_done(void *data) {
        free(data);
}

static Schedtune2 *schedtune2_get(Backend *b) {
        Schedtune2 *s = backend_data(b, &backend_schedtune2);

        if (s)
                return s;
        s = calloc(1, sizeof(Schedtune2));
        if (s)
                backend_set_data(b, &backend_schedtune2, s);
        return s;
}

static int sched_set_boost(pid_t tid, unsigned boost) {
        struct boostd_sched_attr attr = {
                .size = SCHED_ATTR_VER2_SIZE,
                .sched_flags = BOOSTD_SCHED_FLAG_KEEP_ALL | BOOSTD_SCHED_FLAG_UTIL_BOOST,
                .sched_util_boost = boost,
        };

        if (tid <= 0)
                return -ESRCH;
        if (syscall(SYS_sched_setattr, tid, &attr, 0) < 0)
                return errno == E2BIG ? -EOPNOTSUPP : -errno;
        return 0;
}

/* Whether this kernel's struct sched_attr has the task's own boost: it
 * tells its size in what sched_getattr() gives back. */
static bool kernel_has_task_boost(void) {
        struct boostd_sched_attr attr = {};

        if (syscall(SYS_sched_getattr, 0, &attr, SCHED_ATTR_VER2_SIZE, 0) < 0)
                return false;
        return attr.size >= SCHED_ATTR_VER2_SIZE;
}

static int read_sysctl(const Backend *b, unsigned *ret) {
        _cleanup_(freep) char *p = path_join_root(b->root, SYSCTL_BOOST), *s = NULL;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_one_line(p, &s);
        if (r < 0)
                return r;
        return parse_uint(strstrip(s), 100, ret);
}

static int write_sysctl(const Backend *b, unsigned boost) {
        _cleanup_(freep) char *p = path_join_root(b->root, SYSCTL_BOOST);
        char buf[8];

        if (!p)
                return -ENOMEM;
        snprintf(buf, sizeof(buf), "%u\n", boost);
        return write_string(p, buf);
}

static int schedtune2_probe(Backend *b) {
        _cleanup_(freep) char *p = path_join_root(b->root, SYSCTL_BOOST);
        Schedtune2 *s;

        if (!p)
                return -ENOMEM;
        if (access(p, F_OK) < 0) {
                backend_probe_says(b, "no %s (a kernel without SchedTune)", SYSCTL_BOOST);
                return errno == ENOENT ? PROBE_FAIL : -errno;
        }
        s = schedtune2_get(b);
        if (!s)
                return -ENOMEM;
        if (!s->set_boost) {
                if (!kernel_has_task_boost()) {
                        backend_probe_says(b, "%s, but no per-task boost in sched_setattr() (the 6.1 series)",
                                           SYSCTL_BOOST);
                        return PROBE_FAIL;
                }
                s->set_boost = sched_set_boost;
        }
        backend_probe_says(b, "%s and per-task boosts (the 6.12 SchedTune series, cgroup v2)", SYSCTL_BOOST);
        return PROBE_SUCCESS;
}

static int schedtune2_start(Backend *b, const char *const *groups, size_t n) {
        StateGroup *root;
        unsigned cur;
        int r;

        for (size_t i = 0; i < n; i++)
                if (!state_get_group(b->state, groups[i], true))
                        return -ENOSPC;
        r = read_sysctl(b, &cur);
        if (r < 0)
                return log_error_errno(b->log, r, "Failed to read %s: %m", SYSCTL_BOOST);
        root = state_get_group(b->state, "root", true);
        if (!root)
                return -ENOSPC;
        if (root->has_wrote) {
                if (cur != root->wrote)
                        log_notice(b->log, "%s changed by hand since boostd wrote %u.", SYSCTL_BOOST,
                                   root->wrote);
        } else
                root->found = cur;      /* adopted: the journal knows what was found */
        b->state->dirty = true;
        return 0;
}

static int schedtune2_apply(Backend *b, const char *group, unsigned boost) {
        State *j = b->state;
        StateGroup *g = state_get_group(j, group, true);
        const Schedtune2 *s = schedtune2_get(b);
        int r;

        if (!g || !s)
                return -ENOMEM;
        if (streq(group, "root")) {
                r = write_sysctl(b, boost);
                if (r < 0)
                        return log_error_errno(b->log, r, "Failed to write %u to %s: %m", boost, SYSCTL_BOOST);
        }
        g->wrote = boost;
        g->has_wrote = true;
        backend_set_placed(b, group, s->set_boost, boost);
        unit_boost_apply(b, group, boost);
        j->dirty = true;
        return 0;
}

/* The process's threads get the class's boost as their own; "root" gives
 * them 0 back: the root group's sysctl, or their cgroup's cpu.boost,
 * decides then. */
static int schedtune2_attach(Backend *b, const char *group, const ProcessId *id) {
        const Schedtune2 *s = schedtune2_get(b);

        return s ? backend_attach_threads(b, group, id, s->set_boost, NULL) : -ENOMEM;
}

/* The sysctl and the units' cgroups back to what start found (or 0),
 * unless changed by hand. */
static int schedtune2_restore(Backend *b) {
        State *j = b->state;
        StateGroup *root = state_get_group(j, "root", false);
        unsigned cur;
        int r = 0;

        if (root && read_sysctl(b, &cur) == 0) {
                unsigned target = b->restore_found ? root->found : 0;

                if (root->has_wrote && cur != root->wrote)
                        log_notice(b->log, "%s was changed by hand, leaving it.", SYSCTL_BOOST);
                else if (cur != target) {
                        r = write_sysctl(b, target);
                        if (r < 0)
                                log_warning_errno(b->log, r, "Failed to restore %s: %m", SYSCTL_BOOST);
                }
        }
        unit_boost_restore(b);
        state_clear_kernel(j);
        j->dirty = true;
        return r;
}

/* A class went away on reload (its processes have their own boost back):
 * its units give theirs back, and it is forgotten, so that renamed classes
 * never fill the state. */
static int schedtune2_release(Backend *b, const char *group) {
        State *j = b->state;

        for (size_t i = 0; i < j->n_cgroups;) {
                _cleanup_(freep) char *path = NULL;

                if (!streq(j->cgroups[i].group, group)) {
                        i++;
                        continue;
                }
                path = strdup(j->cgroups[i].path);
                if (!path)
                        return -ENOMEM;
                /* drops the entry, and may drop slices before it: again
                 * from the start */
                (void) unit_boost_attach(b, "root", path);
                i = 0;
        }
        state_remove_group(j, group);
        return 0;
}

/* A hint session's thread, left alone while claimed, gets its process's
 * class boost now. */
static int schedtune2_thread_release(Backend *b, BackendThread *t) {
        const Schedtune2 *s = backend_data(b, &backend_schedtune2);

        return s ? backend_thread_set_class(b, t, s->set_boost, NULL) : 0;
}

int backend_schedtune2_set_boost_hook(Backend *b, TaskSetBoost fn) {
        Schedtune2 *s = schedtune2_get(b);

        if (!s)
                return -ENOMEM;
        s->set_boost = fn;
        return 0;
}

const BackendVTable backend_schedtune2 = {
        .name = "schedtune2",
        .probe = schedtune2_probe,
        .start = schedtune2_start,
        .apply = schedtune2_apply,
        .attach = schedtune2_attach,
        .attach_unit = unit_boost_attach,
        .restore = schedtune2_restore,
        .release = schedtune2_release,
        .thread_release = schedtune2_thread_release,
        .done = schedtune2_done,
};
