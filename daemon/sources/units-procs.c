/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The processes of the units in the cgroup tree: what each unit's
 * cgroup.procs lists, placed as it changes, and looked up by PID or by
 * unit. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "units-internal.h"
#include "units.h"
#include "util.h"

#define ROUNDS_MAX 10

static int pid_cmp(const void *a, const void *b) {
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;

        return x < y ? -1 : x > y;
}

static bool pids_have(const pid_t *pids, size_t n, pid_t pid) {
        return n > 0 && bsearch(&pid, pids, n, sizeof(pid_t), pid_cmp);
}

/* Reads a unit's cgroup.procs and places its new PIDs (all of them with
 * all), again until no new one shows up. */
void watch_read_procs(Units *w, WatchDir *d, bool all) {
        _cleanup_(freep) char *procs = NULL;
        _cleanup_(freep) pid_t *seen = NULL;
        size_t n_seen = 0;

        if (!d->unit || !w->following)
                return;
        if (asprintf(&procs, "%s%s/cgroup.procs", w->top, d->path) < 0)
                return;
        if (!all && d->n_pids > 0) {
                seen = malloc(d->n_pids * sizeof(pid_t));
                if (!seen)
                        return;
                memcpy(seen, d->pids, d->n_pids * sizeof(pid_t));
                n_seen = d->n_pids;
        }

        for (unsigned round = 0; round < ROUNDS_MAX; round++) {
                pid_t *now = NULL, *grown;
                size_t n_now = 0, n_new = 0;

                if (read_pid_list(procs, &now, &n_now) < 0)
                        break;          /* gone meanwhile */
                if (n_now > 0)  /* an empty list is NULL, which qsort() must not get */
                        qsort(now, n_now, sizeof(pid_t), pid_cmp);
                grown = realloc(seen, (n_seen + n_now + 1) * sizeof(pid_t));
                if (!grown) {
                        free(now);
                        break;
                }
                seen = grown;
                for (size_t i = 0; i < n_now; i++) {
                        int r;

                        if (pids_have(seen, n_seen, now[i]))
                                continue;
                        r = w->ctx.sink->place(w->ctx.sink->userdata, now[i], d->path);
                        if (r < 0 && r != -ESRCH)
                                log_debug_errno(w->ctx.log, r, "Failed to place PID %d of %s: %m",
                                                (int) now[i], d->path);
                        seen[n_seen + n_new++] = now[i];
                }
                free(d->pids);
                d->pids = now;
                d->n_pids = n_now;
                if (n_new == 0)
                        break;
                n_seen += n_new;
                qsort(seen, n_seen, sizeof(pid_t), pid_cmp);
        }
}

const char *units_cgroup_of(const Units *w, pid_t pid) {
        for (size_t i = 0; w && i < w->n_dirs; i++)
                if (pids_have(w->dirs[i]->pids, w->dirs[i]->n_pids, pid))
                        return w->dirs[i]->path;
        return NULL;
}

void units_forget(Units *w, pid_t pid) {
        for (size_t i = 0; w && i < w->n_dirs; i++) {
                WatchDir *d = w->dirs[i];
                pid_t *p = d->n_pids > 0 ? bsearch(&pid, d->pids, d->n_pids, sizeof(pid_t), pid_cmp) : NULL;

                if (p) {
                        memmove(p, p + 1, (size_t) (d->pids + d->n_pids - p - 1) * sizeof(pid_t));
                        d->n_pids--;
                }
        }
}

void unit_pids_free(UnitPid *p, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(p[i].cgroup);
        free(p);
}

static int unit_pids_collect(const Units *w, const char *path, unsigned depth,
                             UnitPid **list, size_t *n) {
        _cleanup_(freep) char *full = watch_full_path(w, path), *procs = NULL;
        _cleanup_(freep) pid_t *pids = NULL;
        _cleanup_(closedirp) DIR *dir = NULL;
        struct dirent *de;
        size_t np = 0;
        int r;

        if (!full || asprintf(&procs, "%s/cgroup.procs", full) < 0)
                return -ENOMEM;
        r = read_pid_list(procs, &pids, &np);
        if (r < 0)
                return r;
        if (np > 0) {
                UnitPid *l = realloc(*list, (*n + np) * sizeof(UnitPid));

                if (!l)
                        return -ENOMEM;
                *list = l;
                for (size_t i = 0; i < np; i++) {
                        l[*n].pid = pids[i];
                        l[*n].cgroup = strdup(path);
                        if (!l[*n].cgroup)
                                return -ENOMEM;
                        (*n)++;
                }
        }
        if (depth > 64)
                return 0;
        dir = opendir(full);
        while (dir && (de = readdir(dir))) {
                _cleanup_(freep) char *sub = NULL;

                /* units and slices below are apps of their own */
                if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
                    fnmatch("*.service", de->d_name, 0) == 0 || fnmatch("*.scope", de->d_name, 0) == 0 ||
                    fnmatch("*.slice", de->d_name, 0) == 0)
                        continue;
                if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
                        return -ENOMEM;
                r = unit_pids_collect(w, sub, depth + 1, list, n);
                if (r < 0 && r != -ENOENT)
                        return r;
        }
        return 0;
}

int units_unit_pids(const Units *w, const char *unit, UnitPid **ret, size_t *ret_n) {
        UnitPid *list = NULL;
        size_t n = 0;
        int r;

        if (!w)
                return -ENODEV;
        r = unit_pids_collect(w, unit, 0, &list, &n);
        if (r < 0) {
                unit_pids_free(list, n);
                return r;
        }
        *ret = list;
        *ret_n = n;
        return 0;
}
