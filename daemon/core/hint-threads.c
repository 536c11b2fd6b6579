/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What reaches a hint session's thread: which threads a session may name
 * and their pins (start time, UID), checked again before each change; the
 * value each is given, the one it gets back, and the journal of those
 * values for a restart after a crash. hint-sessions.c decides when. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hint-sessions-internal.h"
#include "hint-sessions.h"
#include "macro.h"
#include "process.h"
#include "util.h"

void hint_sessions_restore(HintSessions *w, State *state) {
        unsigned n = 0;

        for (size_t i = 0; i < state->n_clamps; i++) {
                const StateClamp *c = &state->clamps[i];
                uint64_t start;
                int r;

                if (proc_get_start_time(w->proc_root, c->tid, &start) < 0 || start != c->start)
                        continue;       /* exited: nothing to give back */
                r = w->clamp->set(w->root, c->tid, c->previous == 0 ? THREAD_CLAMP_RESET : c->previous);
                if (r < 0 && r != -ESRCH)
                        log_warning_errno(w->log, r, "Cannot give thread %d its uclamp.min back: %m",
                                          (int) c->tid);
                else if (r >= 0)
                        n++;
        }
        if (n > 0)
                log_notice(w->log, "Gave %u threads the uclamp.min they had before hint sessions of an earlier run.",
                           n);
        state_clamps_clear(state);
        state_commit(state);
        w->state = state;
}

static bool thread_of(const HintSessions *w, pid_t pid, pid_t tid) {
        char p[PATH_MAX];
        struct stat st;

        snprintf(p, sizeof(p), "%s/%d/task/%d", w->proc_root, (int) pid, (int) tid);
        return stat(p, &st) == 0;
}

bool hint_sessions_threads_of(const HintSessions *w, pid_t pid, const pid_t *tids, size_t n_tids) {
        for (size_t i = 0; i < n_tids; i++)
                if (tids[i] <= 0 || !thread_of(w, pid, tids[i]))
                        return false;
        return true;
}

/*
 * A thread a session may name: its owner's (its real UID is the
 * session's), and a thread of the session's process or, with any, of any
 * process. The UID is what keeps another user's threads out: the client's
 * PID comes from its connection's credentials, and once the client has
 * exited (a child of it keeping the connection) that PID, or a TID, may
 * be another user's process's. Its start time in *ret_start pins it.
 */
static int thread_allowed(const HintSessions *w, pid_t pid, uid_t uid, bool any, pid_t tid,
                          uint64_t *ret_start) {
        uid_t owner;

        *ret_start = 0;
        if (tid <= 0)
                return 0;       /* hint-table.c words that error */
        if (proc_get_uid(w->proc_root, tid, &owner) < 0 || owner != uid)
                return -ESRCH;
        if (!any && !thread_of(w, pid, tid))
                return -ESRCH;
        return proc_get_start_time(w->proc_root, tid, ret_start) < 0 ? -ESRCH : 0;
}

/* thread_allowed() of each, their start times in starts. */
int hint_threads_allowed(const HintSessions *w, pid_t pid, uid_t uid, bool any, const pid_t *tids, size_t n,
                         uint64_t *starts) {
        int r;

        if (n > HINT_THREADS_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                r = thread_allowed(w, pid, uid, any, tids[i], &starts[i]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Still the thread that was named (its start time), and still uid's. */
static bool thread_current(const HintSessions *w, pid_t tid, uint64_t start, uid_t uid) {
        uint64_t now_start;
        uid_t owner;

        return proc_get_start_time(w->proc_root, tid, &now_start) >= 0 && now_start == start &&
               proc_get_uid(w->proc_root, tid, &owner) >= 0 && owner == uid;
}

static AppliedThread *applied_find(HintSessions *w, pid_t tid) {
        for (size_t i = 0; i < w->n_applied; i++)
                if (w->applied[i].tid == tid)
                        return &w->applied[i];
        return NULL;
}

static void applied_remove(HintSessions *w, AppliedThread *a) {
        size_t i = (size_t) (a - w->applied);

        if (w->state) {
                state_clamp_remove(w->state, a->tid);
                state_save_later(w->state);
        }

        memmove(a, a + 1, (w->n_applied - i - 1) * sizeof(AppliedThread));
        w->n_applied--;
}

/* An output reaches a thread: its uclamp.min, or its pool group. The
 * first kernel refusal of uclamp moves to the pool, when allowed. */
static int actuate(HintSessions *w, pid_t tid, unsigned util_min) {
        int r;

        if (!w->pool) {
                r = w->clamp->set(w->root, tid, util_min);
                if (r != -EOPNOTSUPP || w->config.actuator != HINT_ACTUATOR_AUTO ||
                    !backend_has_pool(w->backend))
                        goto done;
                log_notice(w->log, "No uclamp in this kernel: hint sessions move their threads into schedtune groups.");
                w->pool = true;
        }
        r = backend_thread_pool(w->backend, tid, backend_pool_boost(util_min));
done:
        if (r >= 0 && w->backend)
                r = backend_thread_claim(w->backend, tid);
        return r;
}

/* A thread leaves its last session: its value back, or its own group;
 * only if it is still the thread it was (a TID reused since is another's,
 * and left alone). */
void hint_thread_release(HintSessions *w, AppliedThread *a) {
        uint64_t start;
        int r = 0;

        if (proc_get_start_time(w->proc_root, a->tid, &start) < 0 || start != a->start) {
                log_debug(w->log, "Thread %d exited: nothing to give back.", (int) a->tid);
                if (w->backend)
                        backend_thread_forget(w->backend, a->tid);
                applied_remove(w, a);
                return;
        }
        if (!w->pool)
                r = w->clamp->set(w->root, a->tid, a->previous == 0 ? THREAD_CLAMP_RESET : a->previous);
        /* whatever the kernel said, the thread is no session's now */
        if (w->backend) {
                int k = backend_thread_release(w->backend, a->tid);

                if (r >= 0 || r == -ESRCH)
                        r = k;
        }
        if (r < 0 && r != -ESRCH)
                log_warning_errno(w->log, r, "Cannot give thread %d its %s back: %m", (int) a->tid,
                                  w->pool ? "group" : "uclamp.min");
        applied_remove(w, a);
}

/* Gives one thread (tid, started at start) its output, remembering what
 * it had before. */
int hint_thread_apply(HintSessions *w, pid_t tid, uint64_t start, uint64_t now) {
        AppliedThread *a = applied_find(w, tid), *n;
        unsigned want, previous;
        int r;

        if (a && a->start != start) {
                /* what was given is an exited thread's: nothing to restore */
                if (w->backend)
                        backend_thread_forget(w->backend, tid);
                applied_remove(w, a);
                a = NULL;
        }
        r = hint_table_thread_output(&w->table, tid, now, &want);
        if (r < 0)
                return r;
        if (!a) {
                previous = 0;
                r = w->pool ? 0 : w->clamp->get(w->root, tid, &previous);
                if (r < 0)
                        return r;
                n = realloc(w->applied, (w->n_applied + 1) * sizeof(AppliedThread));
                if (!n)
                        return -ENOMEM;
                w->applied = n;
                a = &w->applied[w->n_applied++];
                *a = (AppliedThread) { .tid = tid, .start = start, .previous = previous,
                                       .applied = UINT_MAX };
                /* on disk before the value changes: a crash from here on
                 * leaves the restart what to give back */
                if (!w->pool && w->state) {
                        r = state_clamp_set(w->state, tid, start, previous);
                        if (r >= 0)
                                r = state_save(w->state);
                        if (r < 0)
                                log_warning_errno(w->log, r, "Cannot journal thread %d's uclamp.min: %m",
                                                  (int) tid);
                }
        }
        if (a->applied == want)
                return 0;
        r = actuate(w, tid, want);
        if (r < 0) {
                if (a->applied == UINT_MAX)
                        applied_remove(w, a);
                return r;
        }
        a->applied = want;
        return 0;
}

/* The sessions that name tid, each checked again (the same thread, still
 * its owner's): those where it is not leave it. Whether one is left, and
 * the thread's start time then. */
static bool check_namings(HintSessions *w, pid_t tid, uint64_t *ret_start) {
        HintSession *stale[HINT_SESSIONS_MAX];
        const HintNaming *e;
        size_t n, n_stale = 0;
        bool alive = false;

        e = hint_table_namings(&w->table, tid, &n);
        for (size_t i = 0; i < n; i++) {
                HintSession *x = e[i].x;
                uint64_t start = x->starts[hint_table_thread_index(x, tid)];

                if (thread_current(w, tid, start, x->uid)) {
                        *ret_start = start;
                        alive = true;
                } else
                        stale[n_stale++] = x;
        }
        /* after the loop: dropping remakes the index e points into */
        for (size_t i = 0; i < n_stale; i++) {
                log_debug(w->log, "Thread %d of hint session %u is gone, or not its owner's.", (int) tid,
                          stale[i]->id);
                hint_table_drop_thread(&w->table, stale[i], hint_table_thread_index(stale[i], tid));
        }
        return alive;
}

/* /proc/TID exists for every thread, listed or not. */
static bool thread_alive(const HintSessions *w, pid_t tid) {
        char p[PATH_MAX];
        struct stat st;

        snprintf(p, sizeof(p), "%s/%d", w->proc_root, (int) tid);
        return stat(p, &st) == 0;
}

/* One thread's value from the sessions that name it now, or its own
 * value back when none does. */
static void apply_tid(HintSessions *w, pid_t tid, uint64_t now) {
        AppliedThread *a = applied_find(w, tid);
        uint64_t start;
        unsigned want;
        int r;

        /* No change for a thread that is there: nothing to check. A
         * change is checked in full first (check_namings()). */
        if (a && hint_table_thread_output(&w->table, tid, now, &want) == 0 && want == a->applied &&
            thread_alive(w, tid))
                return;
        if (check_namings(w, tid, &start)) {
                r = hint_thread_apply(w, tid, start, now);
                if (r < 0 && r != -ESRCH)
                        log_warning_errno(w->log, r, "Cannot give thread %d its session's output: %m",
                                          (int) tid);
                return;
        }
        a = applied_find(w, tid);       /* check_namings() may have moved it */
        if (a)
                hint_thread_release(w, a);
}

void hint_threads_apply(HintSessions *w, const pid_t *tids, size_t n, uint64_t now) {
        for (size_t i = 0; i < n; i++)
                apply_tid(w, tids[i], now);
}
