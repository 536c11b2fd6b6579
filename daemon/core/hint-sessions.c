/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint sessions at work: the calls of a session, which threads each
 * touches and when (a call, the timer, a reload), and the outputs told to
 * the bus; what reaches a thread is hint-threads.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-util.h"
#include "hint-sessions-internal.h"
#include "hint-sessions.h"
#include "macro.h"
#include "process.h"
#include "util.h"

/* A pool group the kernel would not remove yet (a thread of it still
 * exiting) is tried again this often, at most this many times. */
#define POOL_RETRY_NS   (100 * 1000000ULL)
#define POOL_RETRIES    50

static uint64_t monotonic_ns(void) {
        return now_usec() * 1000ULL;
}

static void apply(HintSessions *w);
static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

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
                .clock = monotonic_ns,
                .log = log,
        };
        w->config.bounds_file = w->config.actuator_file = NULL;   /* the copy owns no string */
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

void hint_sessions_reconfigure(HintSessions *w, const HintConfig *config) {
        bool actuator_changed = config->actuator != w->config.actuator;

        /* Another actuator: the threads get their values back by the old
         * one, and their outputs by the new one below. */
        while (actuator_changed && w->n_applied > 0)
                hint_thread_release(w, &w->applied[w->n_applied - 1]);
        w->config = *config;
        w->config.bounds_file = w->config.actuator_file = NULL;
        if (actuator_changed)
                w->pool = pool_configured(w);
        /* a value outside the new bounds comes back inside them */
        for (size_t i = 0; i < w->table.n; i++) {
                HintController *c = &w->table.sessions[i]->ctl;

                c->value = MIN(MAX(c->value, w->config.low), w->config.high);
        }
        apply(w);
}

/* The session's output to the bus, if it changed. */
static void publish(HintSessions *w, HintSession *x, uint64_t now) {
        unsigned out = hint_controller_output(&x->ctl, now);

        if (out == x->published)
                return;
        x->published = out;
        if (w->output_changed)
                w->output_changed(w->userdata, x);
}

/* The timer, for the next output that changes without a call (a stale
 * session, a load-up hint that ends), and for a pool group the kernel
 * would not remove yet. */
static void rearm(HintSessions *w, uint64_t now) {
        uint64_t next = hint_table_next_change(&w->table, now);
        int r;

        if (w->backend && backend_pool_busy(w->backend) && w->pool_retries < POOL_RETRIES &&
            (next == 0 || now + POOL_RETRY_NS < next))
                next = now + POOL_RETRY_NS;
        if (next == 0) {
                event_timer_disarm(w->timer);
                return;
        }
        r = event_timer_arm(w->event, &w->timer, (next + 999) / 1000, on_timer, w, "boostd-sessions");
        if (r < 0)
                log_warning_errno(w->log, r, "Cannot arm the sessions' timer: %m");
}

/* Every thread of every session, and those of no session any more: at
 * the timer, a reload, the end. The calls of one session apply its
 * threads only. */
static void apply(HintSessions *w) {
        uint64_t now = w->clock();
        _cleanup_(freep) pid_t *tids = NULL;
        size_t n = 0;

        tids = malloc((w->table.n_index + w->n_applied + 1) * sizeof(pid_t));
        if (!tids) {
                log_oom(w->log);
                return;
        }
        for (size_t i = 0; i < w->table.n_index; i++)
                if (i == 0 || w->table.index[i].tid != w->table.index[i - 1].tid)
                        tids[n++] = w->table.index[i].tid;
        for (size_t i = 0; i < w->n_applied; i++)
                if (hint_table_namings(&w->table, w->applied[i].tid, &(size_t) { 0 }) == NULL)
                        tids[n++] = w->applied[i].tid;
        hint_threads_apply(w, tids, n, now);
        for (size_t i = 0; i < w->table.n; i++)
                publish(w, w->table.sessions[i], now);
        rearm(w, now);
}

/* At the timer: the sessions whose output changed with time alone (a
 * stale session, a load-up hint that ended); the others' threads have
 * what they had. */
static void apply_changed(HintSessions *w) {
        uint64_t now = w->clock();
        pid_t tids[HINT_THREADS_MAX];

        for (size_t i = 0; i < w->table.n; i++) {
                HintSession *x = w->table.sessions[i];
                size_t n = x->n_tids;

                if (hint_controller_output(&x->ctl, now) == x->published)
                        continue;
                memcpy(tids, x->tids, n * sizeof(pid_t));
                hint_threads_apply(w, tids, n, now);
                publish(w, x, now);
        }
        if (w->pool && w->table.n > 0)
                backend_pool_sweep(w->backend);
        rearm(w, now);
}

/* What a call on session x changed reaches its threads (and those that
 * left it, in old). */
static void apply_session(HintSessions *w, HintSession *x, const pid_t *old, size_t n_old) {
        uint64_t now = w->clock();
        pid_t tids[HINT_THREADS_MAX];
        size_t n = x->n_tids;

        /* a copy: checking them may drop some from x */
        memcpy(tids, x->tids, n * sizeof(pid_t));
        hint_threads_apply(w, old, n_old, now);
        hint_threads_apply(w, tids, n, now);
        if (w->pool)
                backend_pool_sweep(w->backend);
        publish(w, x, now);
        rearm(w, now);
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        HintSessions *w = userdata;

        (void) s, (void) usec;
        if (w->backend && backend_pool_busy(w->backend)) {
                backend_pool_retry(w->backend);
                if (!backend_pool_busy(w->backend))
                        w->pool_retries = 0;
                else if (++w->pool_retries == POOL_RETRIES)
                        log_warning(w->log, "A pool group is still there %d ms after its last session: the kernel refuses to remove it.",
                                    (int) (POOL_RETRIES * (POOL_RETRY_NS / 1000000ULL)));
        } else
                w->pool_retries = 0;
        apply_changed(w);
        return 0;
}

int hint_sessions_create(HintSessions *w, const char *owner, uid_t uid, pid_t pid, bool any,
                         const pid_t *tids, size_t n_tids, uint64_t target_ns, uint32_t *ret_id) {
        uint64_t starts[HINT_THREADS_MAX], pid_start;
        HintSession *x;
        int r;

        if (proc_get_start_time(w->proc_root, pid, &pid_start) < 0)
                return -ESRCH;
        r = hint_threads_allowed(w, pid, uid, any, tids, n_tids, starts);
        if (r < 0)
                return r;
        r = hint_table_create(&w->table, owner, uid, pid, tids, n_tids, target_ns, w->clock(), &x);
        if (r < 0)
                return r;
        x->any = any;
        x->pid_start = pid_start;
        hint_table_pin_threads(x, starts);
        x->published = hint_controller_output(&x->ctl, w->clock());
        /* a kernel without uclamp refuses the first thread: no session */
        r = hint_thread_apply(w, tids[0], starts[0], w->clock());
        if (r < 0) {
                (void) hint_table_close(&w->table, x->id, NULL, NULL);
                hint_threads_apply(w, tids, n_tids, w->clock());
                return r;
        }
        if (ret_id)
                *ret_id = x->id;
        apply_session(w, x, NULL, 0);
        return 0;
}

int hint_sessions_close(HintSessions *w, uint32_t id, const char *owner) {
        HintSession *x = hint_table_find(&w->table, id);
        pid_t tids[HINT_THREADS_MAX];
        size_t n = 0;
        void *ud = NULL;
        int r;

        if (x) {
                n = x->n_tids;
                memcpy(tids, x->tids, n * sizeof(pid_t));
        }
        r = hint_table_close(&w->table, id, owner, &ud);
        if (r < 0)
                return r;
        if (w->closed)
                w->closed(w->userdata, id, ud);
        hint_threads_apply(w, tids, n, w->clock());
        rearm(w, w->clock());
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

/* The owner's session id, if its bucket has a call left (-EBUSY). */
static int owned(HintSessions *w, uint32_t id, const char *owner, HintSession **ret) {
        HintSession *x = hint_table_find(&w->table, id);

        if (!x)
                return -ENOENT;
        if (!owner || !streq(x->owner, owner))
                return -EPERM;
        *ret = x;
        return hint_table_may_call(&w->table, owner, w->clock());
}

int hint_sessions_report(HintSessions *w, uint32_t id, const char *owner, const HintWork *work,
                         size_t n) {
        HintSession *x;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        r = hint_table_report(&w->table, x, work, n, w->clock());
        if (r < 0)
                return r;
        apply_session(w, x, NULL, 0);
        return 0;
}

int hint_sessions_set_target(HintSessions *w, uint32_t id, const char *owner, uint64_t target_ns) {
        HintSession *x;
        uint64_t before;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        before = x->ctl.target_ns;
        r = hint_controller_set_target(&x->ctl, target_ns);
        if (r < 0)
                return r;
        hint_table_spend(&w->table, owner);
        apply_session(w, x, NULL, 0);
        return x->ctl.target_ns != before;
}

static bool same_threads(const HintSession *x, const pid_t *tids, size_t n) {
        if (x->n_tids != n)
                return false;
        for (size_t i = 0; i < n; i++)
                if (x->tids[i] != tids[i])
                        return false;
        return true;
}

int hint_sessions_set_threads(HintSessions *w, uint32_t id, const char *owner, const pid_t *tids,
                              size_t n_tids) {
        uint64_t starts[HINT_THREADS_MAX];
        pid_t old[HINT_THREADS_MAX];
        size_t n_old;
        HintSession *x;
        bool changed;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        /* "its own process" is the process that made the session, not one
         * that took its PID since */
        if (!x->any && process_id_is_current(w->proc_root,
                                             &(ProcessId) { .pid = x->pid, .start_time = x->pid_start }) <= 0)
                return -ESRCH;
        r = hint_threads_allowed(w, x->pid, x->uid, x->any, tids, n_tids, starts);
        if (r < 0)
                return r;
        n_old = x->n_tids;
        memcpy(old, x->tids, n_old * sizeof(pid_t));
        changed = !same_threads(x, tids, n_tids);
        r = hint_table_set_threads(&w->table, x, tids, n_tids);
        if (r < 0)
                return r;
        hint_table_pin_threads(x, starts);
        hint_table_spend(&w->table, owner);
        apply_session(w, x, old, n_old);
        return changed;
}

int hint_sessions_hint(HintSessions *w, uint32_t id, const char *owner, HintKind hint) {
        HintSession *x;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        r = hint_controller_hint(&x->ctl, hint, w->clock());
        if (r < 0)
                return r;
        hint_table_spend(&w->table, owner);
        apply_session(w, x, NULL, 0);
        return 0;
}

int hint_sessions_set_efficient(HintSessions *w, uint32_t id, const char *owner, bool efficient) {
        HintSession *x;
        bool before;
        int r;

        r = owned(w, id, owner, &x);
        if (r < 0)
                return r;
        before = x->ctl.efficient;
        hint_controller_set_efficient(&x->ctl, efficient);
        hint_table_spend(&w->table, owner);
        apply_session(w, x, NULL, 0);
        return before != efficient;
}

unsigned hint_sessions_output(const HintSessions *w, const HintSession *x) {
        return hint_controller_output(&x->ctl, w->clock());
}

void hint_sessions_group(const HintSessions *w, const HintSession *x, char *buf, size_t size) {
        unsigned boost = w->pool ? backend_pool_boost(hint_sessions_output(w, x)) : 0;

        if (boost == 0)
                snprintf(buf, size, "%s", "");
        else
                backend_pool_name(boost, buf, size);
}
