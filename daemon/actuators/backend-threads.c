/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Threads of work sessions, as the backends see them (backend.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "log.h"
#include "util.h"

#define POOL_PREFIX "session."

unsigned backend_pool_boost(unsigned util_min) {
        unsigned steps = 100 / BACKEND_POOL_STEP;

        if (util_min >= 1024)
                return 100;
        /* the step at or above util_min * 100 / 1024 */
        return (util_min * steps + 1023) / 1024 * BACKEND_POOL_STEP;
}

bool backend_has_pool(const Backend *b) {
        return b && b->vt == &backend_schedtune && b->cgroup && b->cgroup->attach_thread;
}

static BackendThread *thread_find(const Backend *b, pid_t tid) {
        for (size_t i = 0; i < b->n_threads; i++)
                if (b->threads[i].tid == tid)
                        return &b->threads[i];
        return NULL;
}

bool backend_thread_claimed(const Backend *b, pid_t tid) {
        return b && thread_find(b, tid);
}

int backend_thread_home(const Backend *b, pid_t tid, char *buf, size_t size) {
        const BackendThread *t = b ? thread_find(b, tid) : NULL;

        if (!t || t->pool == 0 || !t->home[0])
                return 0;
        if (strlen(t->home) >= size)
                return -ENAMETOOLONG;
        strcpy(buf, t->home);
        return 1;
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

void backend_pool_name(unsigned boost, char *buf, size_t size) {
        snprintf(buf, size, POOL_PREFIX "%u", boost);
}

int backend_thread_claim(Backend *b, pid_t tid) {
        BackendThread *n, t = { .tid = tid, .tgid = tid };

        if (thread_find(b, tid))
                return 0;
        (void) proc_get_tgid(b->proc_root, tid, &t.tgid);
        /* Its process's group, not the thread's own: in a tree of files
         * only cgroup.procs says where a thread is. */
        if (b->vt && b->vt->group_of && b->vt->group_of(b, t.tgid, t.home, sizeof(t.home)) < 0)
                t.home[0] = '\0';
        n = realloc(b->threads, (b->n_threads + 1) * sizeof(BackendThread));
        if (!n)
                return -ENOMEM;
        b->threads = n;
        b->threads[b->n_threads++] = t;
        return 0;
}

static void thread_forget(Backend *b, BackendThread *t) {
        memmove(t, t + 1, (b->n_threads - (size_t) (t - b->threads) - 1) * sizeof(BackendThread));
        b->n_threads--;
}

/* Makes the pool group of boost, or finds it, at that boost. */
static int pool_group(Backend *b, unsigned boost, char *name, size_t size) {
        int r;

        backend_pool_name(boost, name, size);
        r = b->cgroup->make_group(b, name);
        if (r < 0)
                return r;
        return b->cgroup->write_value(b, name, b->boost_file, boost);
}

static int thread_move(Backend *b, BackendThread *t, unsigned boost) {
        char name[CLASS_NAME_MAX];
        int r;

        if (boost == 0)
                r = b->cgroup->attach_thread(b, t->home[0] ? t->home : "root", t->tid);
        else {
                r = pool_group(b, boost, name, sizeof(name));
                if (r < 0)
                        return r;
                r = b->cgroup->attach_thread(b, name, t->tid);
        }
        if (r < 0)
                return r;
        t->pool = boost;
        return 0;
}

int backend_thread_pool(Backend *b, pid_t tid, unsigned boost) {
        BackendThread *t;
        bool fresh;
        int r;

        if (!backend_has_pool(b))
                return -EOPNOTSUPP;
        if (boost > 100 || boost % BACKEND_POOL_STEP != 0)
                return -EINVAL;
        fresh = !thread_find(b, tid);
        r = backend_thread_claim(b, tid);
        if (r < 0)
                return r;
        t = thread_find(b, tid);
        if (t->pool == boost)
                return 0;
        r = thread_move(b, t, boost);
        if (r < 0 && fresh)
                thread_forget(b, t);    /* not a session's after all */
        return r;
}

/* Empties the pool groups of the threads no session claims (all: of
 * every thread, claimed ones to their homes), and removes those where no
 * claimed thread is left. A thread or a process a pooled thread created
 * starts in its pool group, as in any cgroup; this is where it leaves. */
static void pool_sweep(Backend *b, bool all) {
        if (!backend_has_pool(b) || !b->path)
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
                dir = path_join(b->path, name);
                tasks = dir ? path_join(dir, "tasks") : NULL;
                if (!tasks)
                        return;
                if (stat(dir, &st) < 0)
                        continue;       /* no such group */
                (void) read_pid_list(tasks, &tids, &n);
                for (size_t i = 0; i < n; i++) {
                        BackendThread *t = thread_find(b, tids[i]);

                        if (t && !all) {
                                claimed = true;
                                continue;
                        }
                        r = b->cgroup->attach_thread(b, t && t->home[0] ? t->home : stray_home(b, tids[i]),
                                                     tids[i]);
                        if (r < 0 && r != -ESRCH)
                                log_warning_errno(b->log, r, "Failed to move thread %d out of %s: %m",
                                                  (int) tids[i], name);
                        if (t)
                                t->pool = 0;
                }
                if (claimed)
                        continue;
                r = b->cgroup->remove_group(b, name);
                if (r == -EBUSY)
                        b->pool_busy = true;
                else if (r < 0 && r != -ENOENT)
                        log_warning_errno(b->log, r, "Failed to remove group %s: %m", name);
        }
}

int backend_thread_release(Backend *b, pid_t tid) {
        BackendThread *t = thread_find(b, tid);
        bool pooled;
        int r = 0;

        if (!t)
                return 0;
        pooled = t->pool > 0 && backend_has_pool(b);
        if (pooled)
                r = thread_move(b, t, 0);
        if (b->vt == &backend_uclamp && b->set_util_min) {
                StatePid *p = state_pid_find(b->state->placed, b->state->n_placed, t->tgid);
                StateGroup *g = p ? state_get_group(b->state, p->group, false) : NULL;

                if (g && g->has_wrote)
                        r = b->set_util_min(tid, uclamp_from_boost(g->wrote));
        }
        thread_forget(b, t);
        if (pooled)
                pool_sweep(b, false);
        return r == -ESRCH ? 0 : r;
}

void backend_threads_moved(Backend *b, pid_t pid, const char *group) {
        for (size_t i = 0; i < b->n_threads; i++) {
                BackendThread *t = &b->threads[i];
                unsigned boost = t->pool;
                int r;

                if (t->tgid != pid)
                        continue;
                snprintf(t->home, sizeof(t->home), "%s", group);
                if (boost == 0 || !backend_has_pool(b))
                        continue;
                t->pool = 0;    /* cgroup.procs took it out */
                r = thread_move(b, t, boost);
                if (r < 0 && r != -ESRCH)
                        log_warning_errno(b->log, r, "Failed to move thread %d back into its session's group: %m",
                                          (int) t->tid);
        }
}

void backend_threads_clear_pool(Backend *b) {
        pool_sweep(b, true);
}

bool backend_pool_busy(const Backend *b) {
        return b->pool_busy;
}

void backend_pool_retry(Backend *b) {
        if (b->pool_busy)
                pool_sweep(b, false);
}
