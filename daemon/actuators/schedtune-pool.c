/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune backend's pool: the groups "session.20" to "session.100"
 * into which hint sessions' threads move alone (backend.h says why),
 * through the backend's cgroup work. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "log.h"
#include "schedtune-internal.h"
#include "util.h"

bool schedtune_has_pool(const Backend *b) {
        const Schedtune *s = SCHEDTUNE(b);

        return s && s->cgroup && s->cgroup->attach_thread;
}

/* Where a thread no session claims goes out of a pool group: beside a
 * claimed thread of its process, else to the group boostd placed its
 * process in (the journal's, also after a crash), else to root. */
static const char *stray_home(const Backend *b, pid_t tid) {
        const StatePid *p;
        pid_t tgid = tid;

        (void) proc_get_tgid(b->proc_root, tid, &tgid);
        for (size_t i = 0; i < b->n_threads; i++)
                if (b->threads[i].tgid == tgid && b->threads[i].home[0])
                        return b->threads[i].home;
        p = state_pid_find(b->state->placed, b->state->n_placed, tgid);
        return p ? p->group : "root";
}

/* Makes the pool group of boost, or finds it, at that boost. */
static int pool_group(Backend *b, unsigned boost, char *name, size_t size) {
        const Schedtune *s = SCHEDTUNE(b);
        int r;

        backend_pool_name(boost, name, size);
        r = s->cgroup->make_group(b, name);
        if (r < 0)
                return r;
        return s->cgroup->write_value(b, name, s->boost_file, boost);
}

int schedtune_thread_pool(Backend *b, BackendThread *t, unsigned boost) {
        const Schedtune *s = SCHEDTUNE(b);
        char name[CLASS_NAME_MAX];
        int r;

        if (boost == 0)
                r = s->cgroup->attach_thread(b, t->home[0] ? t->home : "root", t->tid);
        else {
                r = pool_group(b, boost, name, sizeof(name));
                if (r < 0)
                        return r;
                r = s->cgroup->attach_thread(b, name, t->tid);
        }
        if (r < 0)
                return r;
        t->pool = boost;
        return 0;
}

/* Empties the pool groups of the threads no session claims (all: of
 * every thread, claimed ones to their homes), and removes those where no
 * claimed thread is left. A thread or a process a pooled thread created
 * starts in its pool group, as in any cgroup; this is where it leaves. */
static void pool_sweep(Backend *b, bool all) {
        const Schedtune *s = SCHEDTUNE(b);

        if (!schedtune_has_pool(b) || !s->path)
                return;
        b->pool_busy = false;
        for (unsigned boost = BACKEND_POOL_STEP; boost <= 100; boost += BACKEND_POOL_STEP) {
                _cleanup_(freep) char *dir = NULL, *tasks = NULL;
                _cleanup_(freep) pid_t *tids = NULL;
                char name[CLASS_NAME_MAX];
                bool claimed = false;
                struct stat st;
                size_t n = 0;
                int r;

                backend_pool_name(boost, name, sizeof(name));
                dir = path_join(s->path, name);
                tasks = dir ? path_join(dir, "tasks") : NULL;
                if (!tasks)
                        return;
                if (stat(dir, &st) < 0)
                        continue;       /* no such group */
                (void) read_pid_list(tasks, &tids, &n);
                for (size_t i = 0; i < n; i++) {
                        BackendThread *t = backend_thread_find(b, tids[i]);

                        if (t && !all) {
                                claimed = true;
                                continue;
                        }
                        r = s->cgroup->attach_thread(b, t && t->home[0] ? t->home : stray_home(b, tids[i]),
                                                     tids[i]);
                        if (r < 0 && r != -ESRCH)
                                log_warning_errno(b->log, r, "Failed to move thread %d out of %s: %m",
                                                  (int) tids[i], name);
                        if (t)
                                t->pool = 0;
                }
                if (claimed)
                        continue;
                r = s->cgroup->remove_group(b, name);
                if (r == -EBUSY)
                        b->pool_busy = true;
                else if (r < 0 && r != -ENOENT)
                        log_warning_errno(b->log, r, "Failed to remove group %s: %m", name);
        }
}

/* t is no session's any more: out of its pool group, which goes if no
 * claimed thread is left in it. */
int schedtune_thread_release(Backend *b, BackendThread *t) {
        int r;

        if (t->pool == 0 || !schedtune_has_pool(b))
                return 0;
        r = schedtune_thread_pool(b, t, 0);
        pool_sweep(b, false);
        return r;
}

void schedtune_pool_sweep(Backend *b) {
        pool_sweep(b, false);
}

void schedtune_pool_clear(Backend *b) {
        pool_sweep(b, true);
}
