/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SchedTune backend: a cgroup v1 hierarchy with one child group per
 * class, schedtune.boost per group, PIDs moved through cgroup.procs. The
 * cgroup work goes through libcgroup on the host and through plain files
 * under a root prefix in tests (schedtune-io.h says why). */
#include <fcntl.h>
#include <libcgroup.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "backend.h"
#include "log.h"
#include "schedtune-internal.h"
#include "util.h"

static void schedtune_done(void *data) {
        Schedtune *s = data;

        free(s->path);
        free(s);
}

Schedtune *schedtune_get(Backend *b) {
        Schedtune *s = backend_data(b, &backend_schedtune);

        if (s)
                return s;
        s = calloc(1, sizeof(Schedtune));
        if (!s)
                return NULL;
        s->controller = "schedtune";
        s->boost_file = "schedtune.boost";
        backend_set_data(b, &backend_schedtune, s);
        return s;
}

static int schedtune_probe(Backend *b) {
        _cleanup_(freep) char *path = path_join_root(b->root, "/proc/cgroups"), *line = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        size_t n = 0;

        if (!path)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f) {
                backend_probe_says(b, "no /proc/cgroups yet");
                return errno == ENOENT ? PROBE_DEFER : -errno;
        }
        /* #subsys_name hierarchy num_cgroups enabled */
        while (getline(&line, &n, f) > 0) {
                char name[64];
                unsigned hier, num, enabled;

                if (sscanf(line, "%63s %u %u %u", name, &hier, &num, &enabled) != 4)
                        continue;
                if (streq(name, "schedtune")) {
                        backend_probe_says(b, "the schedtune cgroup v1 controller is %s in /proc/cgroups",
                                           enabled ? "enabled" : "disabled");
                        return enabled ? PROBE_SUCCESS : PROBE_FAIL;
                }
        }
        backend_probe_says(b, "no schedtune controller in /proc/cgroups (a kernel without the 6.1 SchedTune series)");
        return PROBE_FAIL;
}

static int read_boost(const Backend *b, const char *group, unsigned *ret) {
        const Schedtune *s = SCHEDTUNE(b);

        return s->cgroup->read_value(b, group, s->boost_file, BOOST_MAX, ret);
}

static int write_boost(const Backend *b, const char *group, unsigned boost) {
        const Schedtune *s = SCHEDTUNE(b);

        return s->cgroup->write_value(b, group, s->boost_file, boost);
}

static bool looks_mounted(const Schedtune *s, const char *path) {
        _cleanup_(freep) char *p = path_join(path, s->boost_file);

        return p && access(p, F_OK) == 0;
}

/* Finds or makes the hierarchy: an existing mount at the configured
 * point (or, on the host, anywhere libcgroup finds one) is adopted. */
static int schedtune_mount(Backend *b, Schedtune *s) {
        _cleanup_(freep) char *path = path_join_root(b->root, b->mount_point);
        int r;

        if (!path)
                return -ENOMEM;
        if (looks_mounted(s, path)) {
                log_debug(b->log, "Adopting the schedtune hierarchy at %s.", path);
                s->path = TAKE_PTR(path);
                return 0;
        }

        if (root_is_host(b->root) && cgroup_init() == 0) {
                char *mp = NULL;

                if (cgroup_get_subsys_mount_point(s->controller, &mp) == 0 && mp) {
                        if (looks_mounted(s, mp)) {
                                log_info(b->log, "Adopting the schedtune hierarchy mounted at %s.", mp);
                                s->path = mp;
                                return 0;
                        }
                        free(mp);
                }
        }

        r = mkdir_p(path, 0755);
        if (r < 0)
                return log_error_errno(b->log, r, "Failed to create %s: %m", path);
        /* Never over something: an empty directory that is no mount point. */
        r = dir_is_empty_unmounted(path);
        if (r < 0)
                return log_error_errno(b->log, r, "Refusing to mount the schedtune controller on %s: %s", path,
                                       r == -ENOTEMPTY ? "the directory is not empty" :
                                       r == -EBUSY ? "something is mounted there" : strerror(-r));
        if (mount("stune", path, "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, "schedtune") < 0)
                return log_error_errno(b->log, -errno, "Failed to mount the schedtune controller on %s: %m",
                                       path);
        log_info(b->log, "Mounted the schedtune controller on %s.", path);
        s->mounted = true;
        s->path = TAKE_PTR(path);
        return 0;
}

/* libcgroup reads the host's mount table, so it serves only the host. */
static const CgroupOps *cgroup_ops_for(const Backend *b) {
        return root_is_host(b->root) ? &cgroup_ops_libcgroup : &cgroup_ops_files;
}

static int schedtune_start(Backend *b, const char *const *groups, size_t n) {
        State *j = b->state;
        Schedtune *s = schedtune_get(b);
        int r;

        if (!s)
                return -ENOMEM;
        if (!s->path) {
                r = schedtune_mount(b, s);
                if (r < 0)
                        return r;
        }
        if (!s->cgroup)
                s->cgroup = cgroup_ops_for(b);
        if (s->cgroup->init) {
                r = s->cgroup->init(b);
                if (r < 0)
                        return log_error_errno(b->log, r, "%s cannot use the %s hierarchy at %s: %m",
                                               s->cgroup->name, s->controller, s->path);
        }

        for (size_t i = 0; i < n; i++) {
                StateGroup *jg = state_get_group(j, groups[i], false);
                bool created = false;
                unsigned cur = 0;

                if (i > 0) {
                        r = s->cgroup->make_group(b, groups[i]);
                        if (r == -ENOSPC)
                                return log_error_errno(b->log, r,
                                                       "Failed to create group %s: the kernel's group limit is reached",
                                                       groups[i]);
                        if (r == -EINVAL)
                                return log_error_errno(b->log, r, "Failed to create group %s in %s: the hierarchy is not flat: %m",
                                                       groups[i], s->path);
                        if (r < 0)
                                return log_error_errno(b->log, r, "Failed to create group %s in %s: %m",
                                                       groups[i], s->path);
                        created = r > 0;
                }
                r = read_boost(b, groups[i], &cur);
                if (r < 0)
                        return log_error_errno(b->log, r, "Failed to read %s of group %s in %s: %m",
                                               s->boost_file, groups[i], s->path);

                if (jg) {
                        /* Adopted after a restart: the journal knows what was
                         * there before boostd's first change. */
                        if (jg->has_wrote && cur != jg->wrote)
                                log_notice(b->log, "Group %s: boost changed by hand to %u since boostd wrote %u.",
                                           groups[i], cur, jg->wrote);
                        continue;
                }
                jg = state_get_group(j, groups[i], true);
                if (!jg)
                        return -ENOSPC;
                jg->found = created ? 0 : cur;
                jg->created = created;
                log_debug(b->log, "Group %s: %s with boost %u.", groups[i],
                          created ? "created" : "found", cur);
        }

        /* Hint sessions end with boostd: a pool group still there is a
         * crash's. */
        schedtune_pool_clear(b);

        /* The caller saves it before the first change. */
        j->dirty = true;
        return 0;
}

static int schedtune_apply(Backend *b, const char *group, unsigned boost) {
        StateGroup *jg = state_get_group(b->state, group, true);
        const Schedtune *s = schedtune_get(b);
        unsigned cur;
        int r;

        if (!jg || !s)
                return -ENOMEM;
        if (jg->has_wrote && read_boost(b, group, &cur) == 0 && cur != jg->wrote)
                log_notice(b->log, "Group %s: boost was changed by hand to %u, now setting %u.",
                           group, cur, boost);

        r = write_boost(b, group, boost);
        if (r < 0)
                return log_error_errno(b->log, r, "Failed to write %u to %s of group %s: %m",
                                       boost, s->boost_file, group);
        jg->wrote = boost;
        jg->has_wrote = true;
        b->state->dirty = true;
        return 0;
}

static int schedtune_group_of(Backend *b, pid_t pid, char *buf, size_t size) {
        const Schedtune *s = SCHEDTUNE(b);
        int r = backend_thread_home(b, pid, buf, size);

        if (r != 0)
                return MIN(r, 0);
        if (!s || !s->cgroup || !s->cgroup->group_of)
                return -EOPNOTSUPP;
        return s->cgroup->group_of(b, pid, buf, size);
}

static int schedtune_attach(Backend *b, const char *group, const ProcessId *id) {
        State *j = b->state;
        const Schedtune *s = schedtune_get(b);
        StatePid *old;
        char cur[CLASS_NAME_MAX];
        bool changed;
        int r;

        if (!s)
                return -ENOMEM;
        /* A process already there is not written again: each write to
         * cgroup.procs takes the kernel's cgroup locks, and forks wait
         * for them. */
        if (schedtune_group_of(b, id->pid, cur, sizeof(cur)) < 0 || !streq(cur, group)) {
                r = s->cgroup->attach(b, group, id->pid);
                if (r < 0)
                        return r;       /* the caller names the process */
                backend_threads_moved(b, id->pid, group);
        }
        old = state_pid_find(j->placed, j->n_placed, id->pid);
        if (streq(group, "root")) {
                changed = old;
                state_placed_remove(j, id->pid);
        } else {
                changed = !old || old->id.start_time != id->start_time || !streq(old->group, group);
                r = state_placed_set(j, id, group);
                if (r < 0)
                        return r;
        }
        /* The caller saves once per burst (a walk of the tree places
         * thousands), see state_save_later(). */
        if (changed)
                j->dirty = true;
        return 0;
}
/* A group boostd made goes once nothing is in it; one with processes
 * boostd did not place stays (and is tried again at the next stop). */
static int schedtune_remove_made(Backend *b, const char *group) {
        const Schedtune *s = SCHEDTUNE(b);
        int r;

        if (!s->cgroup->remove_group)
                return -EOPNOTSUPP;
        r = s->cgroup->remove_group(b, group);
        if (r == -EBUSY)
                log_notice(b->log, "Group %s: processes boostd did not place are in it, leaving the group.",
                           group);
        else if (r < 0 && r != -ENOENT)
                log_warning_errno(b->log, r, "Failed to remove group %s: %m", group);
        else
                log_debug(b->log, "Group %s removed.", group);
        return r == -ENOENT ? 0 : r;
}

static int schedtune_release(Backend *b, const char *group) {
        StateGroup *g = state_get_group(b->state, group, false);
        const Schedtune *s = SCHEDTUNE(b);
        unsigned target = g && !g->created && b->restore_found ? g->found : 0, cur;
        int r;

        if (!s || !s->path || !s->cgroup || streq(group, "root"))
                return 0;
        /* as at stop: a value someone wrote by hand since boostd's is
         * theirs (schedtune_restore()) */
        r = read_boost(b, group, &cur);
        if (r >= 0 && g && g->has_wrote && cur != g->wrote) {
                log_notice(b->log, "Group %s: boost was changed by hand to %u, leaving it.", group, cur);
                r = -ESTALE;
        } else
                r = write_boost(b, group, target);
        if (r < 0 && r != -ENOENT && r != -ESTALE)
                log_warning_errno(b->log, r, "Failed to reset group %s to %u: %m", group, target);
        if (r >= 0 && g) {
                g->wrote = target;
                g->has_wrote = true;
                b->state->dirty = true;
        }
        if (g && g->created && schedtune_remove_made(b, group) < 0)
                return 0;       /* kept, with what the state knows of it */
        state_remove_group(b->state, group);
        return 0;
}

static int schedtune_restore(Backend *b) {
        State *j = b->state;
        const Schedtune *s = SCHEDTUNE(b);
        int ret = 0, r;

        if (!s || !s->path || !s->cgroup)
                return 0;

        schedtune_pool_clear(b);
        for (size_t i = 0; i < j->n_groups; i++) {
                StateGroup *g = &j->groups[i];
                unsigned cur, target;

                r = read_boost(b, g->name, &cur);
                if (r < 0) {
                        log_debug_errno(b->log, r, "Group %s: cannot read its boost, skipping: %m", g->name);
                        continue;
                }
                if (g->has_wrote && cur != g->wrote) {
                        log_notice(b->log, "Group %s: boost was changed by hand to %u, leaving it.",
                                   g->name, cur);
                        continue;
                }
                target = streq(g->name, "root") || b->restore_found ? g->found : 0;
                if (target != cur) {
                        r = write_boost(b, g->name, target);
                        if (r < 0)
                                ret = log_warning_errno(b->log, r, "Failed to restore group %s to %u: %m",
                                                        g->name, target);
                }
                if (g->created && !streq(g->name, "root"))
                        (void) schedtune_remove_made(b, g->name);
        }

        state_clear_kernel(j);
        j->dirty = true;
        return ret;
}

int backend_schedtune_mount(Backend *b) {
        Schedtune *s;
        int r = schedtune_probe(b);

        if (r < 0)
                return r;
        if (r != PROBE_SUCCESS) {
                log_info(b->log, "No schedtune controller in this kernel, nothing to mount.");
                return 0;
        }
        s = schedtune_get(b);
        if (!s)
                return -ENOMEM;
        return s->path ? 0 : schedtune_mount(b, s);
}

int backend_schedtune_set_cgroup_ops(Backend *b, const CgroupOps *ops) {
        Schedtune *s = schedtune_get(b);

        if (!s)
                return -ENOMEM;
        s->cgroup = ops;
        return 0;
}

const CgroupOps *backend_schedtune_cgroup_ops(const Backend *b) {
        const Schedtune *s = SCHEDTUNE(b);

        return s ? s->cgroup : NULL;
}

int backend_schedtune_set_controller(Backend *b, const char *controller, const char *boost_file) {
        Schedtune *s = schedtune_get(b);

        if (!s)
                return -ENOMEM;
        s->controller = controller;
        s->boost_file = boost_file;
        return 0;
}

int backend_schedtune_set_path(Backend *b, const char *path) {
        Schedtune *s = schedtune_get(b);
        char *p = strdup(path);

        if (!s || !p) {
                free(p);
                return -ENOMEM;
        }
        free(s->path);
        s->path = p;
        return 0;
}

const char *backend_schedtune_path(const Backend *b) {
        const Schedtune *s = SCHEDTUNE(b);

        return s ? s->path : NULL;
}

bool backend_schedtune_mounted(const Backend *b) {
        const Schedtune *s = SCHEDTUNE(b);

        return s && s->mounted;
}

const BackendVTable backend_schedtune = {
        .name = "schedtune",
        .probe = schedtune_probe,
        .start = schedtune_start,
        .apply = schedtune_apply,
        .attach = schedtune_attach,
        .restore = schedtune_restore,
        .release = schedtune_release,
        .group_of = schedtune_group_of,
        .has_pool = schedtune_has_pool,
        .thread_pool = schedtune_thread_pool,
        .thread_release = schedtune_thread_release,
        .pool_sweep = schedtune_pool_sweep,
        .done = schedtune_done,
};
