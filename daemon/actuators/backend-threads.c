/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Threads of hint sessions, as the backends see them (backend.h): the
 * claims, kept here for every backend; what a backend does with a thread
 * goes through its vtable (the schedtune backend's pool groups are in
 * schedtune-pool.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "log.h"
#include "util.h"

/* config.c keeps room for this many pool groups (HINT_POOL_GROUPS) */
_Static_assert(100 / BACKEND_POOL_STEP == HINT_POOL_GROUPS, "the pool groups and the room kept for them");

#define POOL_PREFIX "session."

unsigned backend_pool_boost(unsigned util_min) {
        unsigned steps = 100 / BACKEND_POOL_STEP;

        if (util_min >= 1024)
                return 100;
        /* the step at or above util_min * 100 / 1024 */
        return (util_min * steps + 1023) / 1024 * BACKEND_POOL_STEP;
}

bool backend_has_pool(const Backend *b) {
        return b && b->vt && b->vt->has_pool && b->vt->has_pool(b);
}

BackendThread *backend_thread_find(const Backend *b, pid_t tid) {
        for (size_t i = 0; i < b->n_threads; i++)
                if (b->threads[i].tid == tid)
                        return &b->threads[i];
        return NULL;
}

bool backend_thread_claimed(const Backend *b, pid_t tid) {
        return b && backend_thread_find(b, tid);
}

int backend_thread_home(const Backend *b, pid_t tid, char *buf, size_t size) {
        const BackendThread *t = b ? backend_thread_find(b, tid) : NULL;

        if (!t || t->pool == 0 || !t->home[0])
                return 0;
        if (strlen(t->home) >= size)
                return -ENAMETOOLONG;
        strcpy(buf, t->home);
        return 1;
}

void backend_pool_name(unsigned boost, char *buf, size_t size) {
        snprintf(buf, size, POOL_PREFIX "%u", boost);
}

int backend_thread_claim(Backend *b, pid_t tid) {
        BackendThread *n, t = { .tid = tid, .tgid = tid };

        if (backend_thread_find(b, tid))
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

int backend_thread_pool(Backend *b, pid_t tid, unsigned boost) {
        BackendThread *t;
        bool fresh;
        int r;

        if (!backend_has_pool(b))
                return -EOPNOTSUPP;
        if (boost > 100 || boost % BACKEND_POOL_STEP != 0)
                return -EINVAL;
        fresh = !backend_thread_find(b, tid);
        r = backend_thread_claim(b, tid);
        if (r < 0)
                return r;
        t = backend_thread_find(b, tid);
        if (t->pool == boost)
                return 0;
        r = b->vt->thread_pool(b, t, boost);
        if (r < 0 && fresh)
                thread_forget(b, t);    /* not a session's after all */
        return r;
}

int backend_thread_release(Backend *b, pid_t tid) {
        BackendThread *t = backend_thread_find(b, tid), gone;
        int r = 0;

        if (!t)
                return 0;
        /* Forgotten first: the pool groups are then emptied of the
         * threads no session claims, this one too if it is still there. */
        gone = *t;
        thread_forget(b, t);
        if (b->vt && b->vt->thread_release)
                r = b->vt->thread_release(b, &gone);
        return r == -ESRCH ? 0 : r;
}

void backend_thread_forget(Backend *b, pid_t tid) {
        BackendThread *t = backend_thread_find(b, tid);

        if (!t)
                return;
        thread_forget(b, t);
        /* its pool group may have no claimed thread left */
        backend_pool_sweep(b);
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
                r = b->vt->thread_pool(b, t, boost);
                if (r < 0 && r != -ESRCH)
                        log_warning_errno(b->log, r, "Failed to move thread %d back into its session's group: %m",
                                          (int) t->tid);
        }
}

bool backend_pool_busy(const Backend *b) {
        return b->pool_busy;
}

void backend_pool_sweep(Backend *b) {
        if (b && b->vt && b->vt->pool_sweep)
                b->vt->pool_sweep(b);
}

void backend_pool_retry(Backend *b) {
        if (b->pool_busy && b->vt && b->vt->pool_sweep)
                b->vt->pool_sweep(b);
}
