/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint sessions at work: outputs applied to threads, values given back. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "event-util.h"
#include "process.h"
#include "macro.h"
#include "util.h"
#include "hint-sessions.h"

/* A pool group the kernel would not remove yet (a thread of it still
 * exiting) is tried again this often, at most this many times. */
#define POOL_RETRY_NS   (100 * 1000000ULL)
#define POOL_RETRIES    50

static uint64_t now_ns(void) {
        return now_usec() * 1000ULL;
}

static void apply(HintSessions *w);

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s, (void) usec;
        apply(userdata);
        return 0;
}

static bool pool_configured(const HintSessions *w) {
        return w->config.actuator == HINT_ACTUATOR_SCHEDTUNE;
}

int hint_sessions_init(HintSessions *w, const char *root, const char *proc_root, sd_event *event,
                       const HintConfig *config, const LogContext *log) {
        *w = (HintSessions) {
                .config = *config,
                .clamp = thread_clamp_ops(root),
                .root = strdup(root ?: "/"),
                .proc_root = strdup(proc_root ?: "/proc"),
                .event = event,
                .log = log,
        };
        w->config.bounds_file = NULL;   /* the copy owns no string */
        if (!w->root || !w->proc_root)
                return -ENOMEM;
        w->pool = pool_configured(w);
        hint_table_init(&w->table, &w->config);
        return 0;
}

void hint_sessions_set_backend(HintSessions *w, Backend *b) {
        w->backend = b;
        w->pool = pool_configured(w);
}

void hint_sessions_done(HintSessions *w) {
        if (!w->root)
                return;         /* never initialized */
        while (w->table.n > 0)
                (void) hint_sessions_close(w, w->table.sessions[0]->id, NULL);
        apply(w);
        hint_table_done(&w->table);
        free(w->applied);
        free(w->root);
        free(w->proc_root);
        w->timer = sd_event_source_disable_unref(w->timer);
        *w = (HintSessions) {};
}

static void release_thread(HintSessions *w, AppliedThread *a);

void hint_sessions_reconfigure(HintSessions *w, const HintConfig *config) {
        bool actuator_changed = config->actuator != w->config.actuator;

        /* Another actuator: the threads get their values back by the old
         * one, and their outputs by the new one below. */
        while (actuator_changed && w->n_applied > 0)
                release_thread(w, &w->applied[w->n_applied - 1]);
        w->config = *config;
        w->config.bounds_file = NULL;
        if (actuator_changed)
                w->pool = pool_configured(w);
        /* a value outside the new bounds comes back inside them */
        for (size_t i = 0; i < w->table.n; i++) {
                HintController *c = &w->table.sessions[i]->ctl;

                c->value = MIN(MAX(c->value, w->config.low), w->config.high);
        }
        apply(w);
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

        memmove(a, a + 1, (w->n_applied - i - 1) * sizeof(AppliedThread));
        w->n_applied--;
}

static bool named(const HintSessions *w, pid_t tid) {
        unsigned v;

        return hint_table_thread_output(&w->table, tid, 0, &v) == 0;
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
static void release_thread(HintSessions *w, AppliedThread *a) {
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
static int apply_thread(HintSessions *w, pid_t tid, uint64_t start, uint64_t now) {
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

static void apply(HintSessions *w) {
        uint64_t now = now_ns(), next;
        bool busy;
        int r;

        if (w->backend)
                backend_pool_retry(w->backend);

        /* the threads of every session, dropping those that are gone */
        for (size_t i = 0; i < w->table.n; i++) {
                HintSession *x = w->table.sessions[i];

                for (size_t j = 0; j < x->n_tids;) {
                        pid_t tid = x->tids[j];

                        /* checked again before every actuation: the same
                         * thread, still the owner's */
                        r = thread_current(w, tid, x->starts[j], x->uid) ?
                                apply_thread(w, tid, x->starts[j], now) : -ESRCH;
                        if (r == -ESRCH) {
                                log_debug(w->log, "Thread %d of hint session %u is gone, or not its owner's.",
                                          (int) tid, x->id);
                                hint_table_drop_thread(x, j);
                                continue;       /* x->tids shifted down */
                        }
                        if (r < 0)
                                log_warning_errno(w->log, r, "Cannot give thread %d its session's output: %m",
                                                  (int) tid);
                        j++;
                }
        }
        /* threads in no session any more get their value back */
        for (size_t i = 0; i < w->n_applied;) {
                AppliedThread *a = &w->applied[i];

                if (named(w, a->tid)) {
                        i++;
                        continue;
                }
                release_thread(w, a);
        }
        for (size_t i = 0; i < w->table.n; i++) {
                HintSession *x = w->table.sessions[i];
                unsigned out = hint_controller_output(&x->ctl, now);

                if (out != x->published) {
                        x->published = out;
                        if (w->output_changed)
                                w->output_changed(w->userdata, x);
                }
        }
        next = hint_table_next_change(&w->table, now);
        busy = w->backend && backend_pool_busy(w->backend);
        if (!busy) {
                w->pool_retries = 0;
        } else if (w->pool_retries < POOL_RETRIES) {
                w->pool_retries++;
                if (next == 0 || now + POOL_RETRY_NS < next)
                        next = now + POOL_RETRY_NS;
        } else if (w->pool_retries++ == POOL_RETRIES) {
                log_warning(w->log, "A pool group is still there %d ms after its last session: the kernel refuses to remove it.",
                            (int) (POOL_RETRIES * (POOL_RETRY_NS / 1000000ULL)));
        }
        if (next == 0) {
                event_timer_disarm(w->timer);
                return;
        }
        r = event_timer_arm(w->event, &w->timer, (next + 999) / 1000, on_timer, w,
                            "boostd-sessions");
        if (r < 0)
                log_warning_errno(w->log, r, "Cannot arm the sessions' timer: %m");
}

int hint_sessions_create(HintSessions *w, const char *owner, uid_t uid, pid_t pid, bool any,
                         const pid_t *tids, size_t n_tids, uint64_t target_ns, uint32_t *ret_id) {
        uint64_t starts[HINT_THREADS_MAX], pid_start;
        HintSession *x;
        int r;

        if (n_tids > HINT_THREADS_MAX)
                return -EINVAL;
        if (proc_get_start_time(w->proc_root, pid, &pid_start) < 0)
                return -ESRCH;
        for (size_t i = 0; i < n_tids; i++) {
                r = thread_allowed(w, pid, uid, any, tids[i], &starts[i]);
                if (r < 0)
                        return r;
        }
        r = hint_table_create(&w->table, owner, uid, pid, tids, n_tids, target_ns, now_ns(), &x);
        if (r < 0)
                return r;
        x->any = any;
        x->pid_start = pid_start;
        hint_table_pin_threads(x, starts);
        x->published = hint_controller_output(&x->ctl, now_ns());
        /* a kernel without uclamp refuses the first thread: no session */
        r = apply_thread(w, tids[0], starts[0], now_ns());
        if (r < 0) {
                uint32_t id = x->id;

                (void) hint_table_close(&w->table, id, NULL, NULL);
                apply(w);
                return r;
        }
        apply(w);
        if (ret_id)
                *ret_id = x->id;
        return 0;
}

int hint_sessions_close(HintSessions *w, uint32_t id, const char *owner) {
        void *ud = NULL;
        int r;

        r = hint_table_close(&w->table, id, owner, &ud);
        if (r < 0)
                return r;
        if (w->closed)
                w->closed(w->userdata, id, ud);
        apply(w);
        return 0;
}

unsigned hint_sessions_close_owner(HintSessions *w, const char *owner) {
        unsigned n = 0;
        int i;

        while ((i = hint_table_find_owner(&w->table, owner)) >= 0) {
                (void) hint_sessions_close(w, w->table.sessions[i]->id, NULL);
                n++;
        }
        return n;
}

static int owned(HintSessions *w, uint32_t id, const char *owner, HintSession **ret) {
        HintSession *x = hint_table_find(&w->table, id);

        if (!x)
                return -ENOENT;
        if (!owner || !streq(x->owner, owner))
                return -EPERM;
        *ret = x;
        return 0;
}

int hint_sessions_report(HintSessions *w, uint32_t id, const char *owner, const HintWork *work,
                         size_t n) {
        HintSession *x;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        r = hint_table_report(x, work, n, now_ns());
        if (r < 0)
                return r;
        apply(w);
        return 0;
}

int hint_sessions_set_target(HintSessions *w, uint32_t id, const char *owner, uint64_t target_ns) {
        HintSession *x;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        r = hint_controller_set_target(&x->ctl, target_ns);
        if (r < 0)
                return r;
        apply(w);
        return 0;
}

int hint_sessions_set_threads(HintSessions *w, uint32_t id, const char *owner, const pid_t *tids,
                              size_t n_tids) {
        uint64_t starts[HINT_THREADS_MAX];
        HintSession *x;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        if (n_tids > HINT_THREADS_MAX)
                return -EINVAL;
        /* "its own process" is the process that made the session, not one
         * that took its PID since */
        if (!x->any && process_id_is_current(w->proc_root,
                                             &(ProcessId) { .pid = x->pid, .start_time = x->pid_start }) <= 0)
                return -ESRCH;
        for (size_t i = 0; i < n_tids; i++) {
                r = thread_allowed(w, x->pid, x->uid, x->any, tids[i], &starts[i]);
                if (r < 0)
                        return r;
        }
        r = hint_table_set_threads(x, tids, n_tids);
        if (r < 0)
                return r;
        hint_table_pin_threads(x, starts);
        apply(w);
        return 0;
}

int hint_sessions_hint(HintSessions *w, uint32_t id, const char *owner, HintKind hint) {
        HintSession *x;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        r = hint_controller_hint(&x->ctl, hint, now_ns());
        if (r < 0)
                return r;
        apply(w);
        return 0;
}

unsigned hint_sessions_output(const HintSessions *w, const HintSession *x) {
        (void) w;
        return hint_controller_output(&x->ctl, now_ns());
}

void hint_sessions_group(const HintSessions *w, const HintSession *x, char *buf, size_t size) {
        unsigned boost = w->pool ? backend_pool_boost(hint_sessions_output(w, x)) : 0;

        if (boost == 0)
                snprintf(buf, size, "%s", "");
        else
                backend_pool_name(boost, buf, size);
}
