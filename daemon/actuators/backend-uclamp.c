/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The uclamp backend, for kernels without SchedTune but with
 * CONFIG_UCLAMP_TASK: a group's boost becomes the util_min clamp of each
 * of its tasks (sched_setattr() with SCHED_FLAG_UTIL_CLAMP_MIN) and, when
 * boostd owns a cgroup v2 group (UclampGroup=), cpu.uclamp.min of that
 * group's child for the class.
 *
 * Mapping: util_min = round(boost * 1024 / 100); cpu.uclamp.min gets the
 * boost as a percentage, "B.00", which the kernel turns into the same
 * round(B * 100 * 1024 / 10000). SchedTune adds a margin proportional to
 * the spare capacity (util + (1024 - util) * boost / 100), so it raises
 * busy tasks less and small tasks more than a floor does; uclamp
 * guarantees a floor: max(util, util_min). For a task at 20% utilization,
 * boost 50 gives 60% with SchedTune and 50% with uclamp; at 80%, 90% and
 * 80%. The cgroup value differs from the per-task one in reach (every task
 * in the group, not only those boostd placed) and in limits (a group's
 * effective cpu.uclamp.min is capped by its parents' and by its own
 * cpu.uclamp.max). The root group has no equivalent (the sysctl
 * sched_util_clamp_min is a limit, not a floor), so its boost is only
 * tracked. */
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "backend.h"
#include "log.h"
#include "thread-clamp.h"
#include "util.h"

/* The uclamp backend's own fields (Backend.data). */
typedef struct Uclamp {
        /* sets util_min of one task; a seam for tests */
        UclampSetUtilMin set_util_min;
        /* a cgroup v2 group boostd owns (resolved, below root), whose
         * children per class get cpu.uclamp.min; NULL = none */
        char *group;
} Uclamp;

static void uclamp_done(void *data) {
        Uclamp *u = data;

        free(u->group);
        free(u);
}

/* b's uclamp fields, made at their first use; NULL if out of memory. */
static Uclamp *uclamp_get(Backend *b) {
        Uclamp *u = backend_data(b, &backend_uclamp);

        if (u)
                return u;
        u = calloc(1, sizeof(Uclamp));
        if (u)
                backend_set_data(b, &backend_uclamp, u);
        return u;
}

/* One thread's util_min, through thread-clamp.c's syscall. */
static int sched_set_util_min(pid_t tid, unsigned util_min) {
        return thread_clamp_syscall.set(NULL, tid, util_min);
}

static int uclamp_probe(Backend *b) {
        _cleanup_(freep) char *p = path_join_root(b->root, "/proc/sys/kernel/sched_util_clamp_min");
        Uclamp *u;

        if (!p)
                return -ENOMEM;
        if (access(p, F_OK) < 0) {
                backend_probe_says(b, "no /proc/sys/kernel/sched_util_clamp_min (a kernel without CONFIG_UCLAMP_TASK)");
                return errno == ENOENT ? PROBE_FAIL : -errno;
        }
        backend_probe_says(b, "the kernel has uclamp (/proc/sys/kernel/sched_util_clamp_min)");
        u = uclamp_get(b);
        if (!u)
                return -ENOMEM;
        if (!u->set_util_min)
                u->set_util_min = sched_set_util_min;
        return PROBE_SUCCESS;
}

void uclamp_percent_format(unsigned hundredths, char *buf, size_t size) {
        hundredths = MIN(hundredths, 10000U);
        snprintf(buf, size, "%u.%02u\n", hundredths / 100, hundredths % 100);
}

int uclamp_percent_parse(const char *s, unsigned *ret_hundredths) {
        unsigned whole = 0, frac = 0, digits = 0;
        const char *c = s;

        if (!isdigit((unsigned char) *c))
                return -EINVAL;
        for (; isdigit((unsigned char) *c); c++) {
                whole = whole * 10 + (unsigned) (*c - '0');
                if (whole > 100)
                        return -ERANGE;
        }
        if (*c == '.')
                for (c++; isdigit((unsigned char) *c); c++, digits++) {
                        if (digits == 2)
                                return -EINVAL;
                        frac = frac * 10 + (unsigned) (*c - '0');
                }
        if (*c != '\0' || (c[-1] == '.'))
                return -EINVAL;
        if (digits == 1)
                frac *= 10;
        if (whole * 100 + frac > 10000)
                return -ERANGE;
        *ret_hundredths = whole * 100 + frac;
        return 0;
}

/* The owned cgroup v2 group of a class; root has none (its value would
 * cap every class below it). */
static char *class_group(const Uclamp *u, const char *group, const char *file) {
        _cleanup_(freep) char *d = NULL;

        if (!u->group || streq(group, "root"))
                return NULL;
        d = path_join(u->group, group);
        return d && file ? path_join(d, file) : TAKE_PTR(d);
}

static int read_uclamp_min(const Uclamp *u, const char *group, unsigned *ret) {
        _cleanup_(freep) char *p = class_group(u, group, "cpu.uclamp.min"), *s = NULL;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_one_line(p, &s);
        if (r < 0)
                return r;
        return uclamp_percent_parse(strstrip(s), ret);
}

static int write_uclamp_min(const Uclamp *u, const char *group, unsigned hundredths) {
        _cleanup_(freep) char *p = class_group(u, group, "cpu.uclamp.min");
        char buf[16];

        if (!p)
                return -ENOMEM;
        uclamp_percent_format(hundredths, buf, sizeof(buf));
        return write_string(p, buf);
}

/* Makes (or adopts) the owned group's child per class with the cpu
 * controller, and records its cpu.uclamp.min before any change. */
static int uclamp_start_cgroup(Backend *b, const Uclamp *u, const char *const *groups, size_t n) {
        _cleanup_(freep) char *controllers = path_join(u->group, "cgroup.controllers");
        _cleanup_(freep) char *subtree = path_join(u->group, "cgroup.subtree_control");
        int r;

        if (!controllers || !subtree)
                return -ENOMEM;
        if (access(controllers, F_OK) < 0)
                return log_error_errno(b->log, -errno, "UclampGroup=%s is not a cgroup v2 group: %m",
                                       u->group);
        r = write_string(subtree, "+cpu\n");
        if (r < 0)
                return log_error_errno(b->log, r, "Failed to enable the cpu controller below %s: %m",
                                       u->group);

        for (size_t i = 0; i < n; i++) {
                _cleanup_(freep) char *dir = class_group(u, groups[i], NULL);
                StateGroup *jg = state_get_group(b->state, groups[i], false);
                bool created = false;
                unsigned cur;

                if (streq(groups[i], "root"))
                        continue;
                if (!dir)
                        return -ENOMEM;
                if (mkdir(dir, 0755) == 0) {
                        created = true;
                        (void) chmod(dir, 0755);        /* past the unit's UMask=0077 */
                } else if (errno != EEXIST)
                        return log_error_errno(b->log, -errno, "Failed to create %s: %m", dir);
                r = read_uclamp_min(u, groups[i], &cur);
                if (r < 0)
                        return log_error_errno(b->log, r, "Failed to read %s/cpu.uclamp.min: %m", dir);
                if (jg && jg->has_wrote) {
                        if (cur != jg->wrote * 100)
                                log_notice(b->log, "Group %s: cpu.uclamp.min changed by hand since boostd wrote %u.00.",
                                           groups[i], jg->wrote);
                        continue;       /* adopted: the journal knows what was found */
                }
                jg = state_get_group(b->state, groups[i], true);
                if (!jg)
                        return -ENOSPC;
                /* the journal keeps whole percents */
                jg->found = (cur + 50) / 100;
                jg->created = created;
        }
        return 0;
}

static int uclamp_start(Backend *b, const char *const *groups, size_t n) {
        const Uclamp *u = uclamp_get(b);
        int r;

        if (!u)
                return -ENOMEM;
        if (u->group) {
                r = uclamp_start_cgroup(b, u, groups, n);
                if (r < 0)
                        return r;
        }
        for (size_t i = 0; i < n; i++)
                if (!state_get_group(b->state, groups[i], true))
                        return -ENOSPC;
        b->state->dirty = true;
        return 0;
}

static int uclamp_apply(Backend *b, const char *group, unsigned boost) {
        State *j = b->state;
        StateGroup *g = state_get_group(j, group, true);
        const Uclamp *u = uclamp_get(b);

        if (!g || !u)
                return -ENOMEM;
        if (u->group && !streq(group, "root")) {
                unsigned cur;
                int r;

                if (g->has_wrote && read_uclamp_min(u, group, &cur) == 0 && cur != g->wrote * 100)
                        log_notice(b->log, "Group %s: cpu.uclamp.min was changed by hand, now setting %u.00.",
                                   group, boost);
                r = write_uclamp_min(u, group, boost * 100);
                if (r < 0)
                        return log_error_errno(b->log, r, "Failed to write %u.00 to cpu.uclamp.min of %s/%s: %m",
                                               boost, u->group, group);
        }
        g->wrote = boost;
        g->has_wrote = true;
        backend_set_placed(b, group, u->set_util_min, uclamp_from_boost(boost));
        j->dirty = true;
        return 0;
}

static int uclamp_attach(Backend *b, const char *group, const ProcessId *id) {
        const Uclamp *u = uclamp_get(b);

        return u ? backend_attach_threads(b, group, id, u->set_util_min, uclamp_from_boost) : -ENOMEM;
}

/* Puts cpu.uclamp.min of the owned groups back, unless changed by hand. */
static int uclamp_restore_cgroup(Backend *b, const Uclamp *u) {
        State *j = b->state;
        int ret = 0, r;

        for (size_t i = 0; i < j->n_groups; i++) {
                StateGroup *g = &j->groups[i];
                unsigned cur, target;

                if (streq(g->name, "root") || read_uclamp_min(u, g->name, &cur) < 0)
                        continue;
                if (g->has_wrote && cur != g->wrote * 100) {
                        log_notice(b->log, "Group %s: cpu.uclamp.min was changed by hand, leaving it.", g->name);
                        continue;
                }
                target = (b->restore_found ? g->found : 0) * 100;
                if (target == cur)
                        continue;
                r = write_uclamp_min(u, g->name, target);
                if (r < 0)
                        ret = log_warning_errno(b->log, r, "Failed to restore cpu.uclamp.min of %s: %m", g->name);
        }
        return ret;
}

static int uclamp_restore(Backend *b) {
        State *j = b->state;
        const Uclamp *u = backend_data(b, &backend_uclamp);
        int r = 0;

        if (u && u->group)
                r = uclamp_restore_cgroup(b, u);
        state_clear_kernel(j);
        j->dirty = true;
        return r;
}

/* A hint session's thread, left alone while claimed, gets the util_min
 * of its process's group now, not the one it had before. */
static int uclamp_thread_release(Backend *b, BackendThread *t) {
        const Uclamp *u = backend_data(b, &backend_uclamp);

        return u ? backend_thread_set_class(b, t, u->set_util_min, uclamp_from_boost) : 0;
}

int backend_uclamp_set_util_min_hook(Backend *b, UclampSetUtilMin fn) {
        Uclamp *u = uclamp_get(b);

        if (!u)
                return -ENOMEM;
        u->set_util_min = fn;
        return 0;
}

UclampSetUtilMin backend_uclamp_util_min_hook(const Backend *b) {
        const Uclamp *u = backend_data(b, &backend_uclamp);

        return u ? u->set_util_min : NULL;
}

int backend_uclamp_set_group(Backend *b, const char *group) {
        Uclamp *u = uclamp_get(b);
        char *g = strdup(group);

        if (!u || !g) {
                free(g);
                return -ENOMEM;
        }
        free(u->group);
        u->group = g;
        return 0;
}

/* A class went away on reload (its processes are back in root): its owned
 * group's cpu.uclamp.min back to 0 and the group removed if boostd made
 * it, and forgotten, so that renamed classes never fill the state. */
static int uclamp_release(Backend *b, const char *group) {
        const Uclamp *u = uclamp_get(b);
        StateGroup *g = state_get_group(b->state, group, false);
        int r;

        if (!u)
                return -ENOMEM;
        r = uclamp_apply(b, group, 0);
        if (r >= 0 && u->group && g && g->created) {
                _cleanup_(freep) char *dir = class_group(u, group, NULL);

                if (dir && rmdir(dir) < 0 && errno != ENOENT)
                        log_warning_errno(b->log, -errno, "Failed to remove %s, leaving it: %m", dir);
        }
        state_remove_group(b->state, group);
        return r;
}

const BackendVTable backend_uclamp = {
        .name = "uclamp",
        .probe = uclamp_probe,
        .start = uclamp_start,
        .apply = uclamp_apply,
        .attach = uclamp_attach,
        .restore = uclamp_restore,
        .release = uclamp_release,
        .thread_release = uclamp_thread_release,
        .done = uclamp_done,
};
