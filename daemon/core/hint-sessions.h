/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint sessions at work: the session table (sessions.c), what each thread
 * runs at (the largest output of its sessions: its uclamp.min through
 * thread-clamp.c, or without uclamp a pool group of the backend's),
 * the value to give a thread back when it leaves its last session, and
 * the timer for outputs that change without a report (stale sessions,
 * load-up hints that end). Returns negative errno; the bus layer words
 * errors and tracks the owners on the bus. */
#pragma once

#include <systemd/sd-event.h>

#include "backend.h"
#include "config-hints.h"
#include "log.h"
#include "hint-table.h"
#include "thread-clamp.h"

typedef struct AppliedThread {
        pid_t tid;
        uint64_t start;         /* its start time: a reused TID is not it */
        unsigned previous;      /* its uclamp.min before its first session */
        unsigned applied;       /* what it was given last */
} AppliedThread;

typedef struct HintSessions {
        HintTable table;
        HintConfig config;          /* a copy: a reload may free the old */
        const ThreadClampOps *clamp;
        char *root;                     /* of the clamp files */
        /* the manager's: told which threads are sessions', and their pool
         * (backend.h) where outputs go without uclamp; NULL: none */
        Backend *backend;
        /* the manager's: each clamped thread's value before, on disk
         * before it is changed (hint_sessions_restore()); NULL: none */
        State *state;
        bool pool;                      /* outputs go to the pool */
        char *proc_root;                /* where threads are looked up */
        AppliedThread *applied;
        size_t n_applied;
        sd_event *event;
        sd_event_source *timer;
        unsigned pool_retries;          /* of a pool group's removal */
        /* CLOCK_MONOTONIC in ns; a test's own clock */
        uint64_t (*clock)(void);
        const LogContext *log;
        /* told when a session's output (its Boost property) changed,
         * and when a session was closed (its HintSession.userdata given) */
        void *userdata;
        void (*output_changed)(void *userdata, const HintSession *x);
        void (*closed)(void *userdata, uint32_t id, void *hint_userdata);
} HintSessions;

int hint_sessions_init(HintSessions *w, const char *root, const char *proc_root, sd_event *event,
                       const HintConfig *config, const LogContext *log);
/* The backend the threads are claimed from (see backend.h), and so
 * whether there is a pool: set before the first session. */
void hint_sessions_set_backend(HintSessions *w, Backend *b);
/* At start: the threads an earlier run left clamped (it crashed: a clean
 * stop gives every value back) get their value back, if each is still
 * the thread it was (start time); from then on the clamps are journaled
 * in state. */
void hint_sessions_restore(HintSessions *w, State *state);
/* Gives every thread its value back. */
void hint_sessions_done(HintSessions *w);
/* New gains and bounds for every session; outputs are applied again. */
void hint_sessions_reconfigure(HintSessions *w, const HintConfig *config);

/* Whether every tid is a thread of process pid. */
bool hint_sessions_threads_of(const HintSessions *w, pid_t pid, const pid_t *tids, size_t n_tids);

/* Every tid must be a thread of process pid, or with any a thread of a
 * process of uid (-ESRCH otherwise); then as hint_table_create(). The
 * threads run at the initial output at once. */
int hint_sessions_create(HintSessions *w, const char *owner, uid_t uid, pid_t pid, bool any,
                         const pid_t *tids, size_t n_tids, uint64_t target_ns, uint32_t *ret_id);
/* owner NULL: the manager's own close (its client left). */
int hint_sessions_close(HintSessions *w, uint32_t id, const char *owner);
/* Closes every session of owner; returns how many. */
unsigned hint_sessions_close_owner(HintSessions *w, const char *owner);

/* The calls of a session's owner: -ENOENT no such session, -EPERM another
 * client's, then what sessions.c returns. */
int hint_sessions_report(HintSessions *w, uint32_t id, const char *owner, const HintWork *work,
                         size_t n);
int hint_sessions_set_target(HintSessions *w, uint32_t id, const char *owner, uint64_t target_ns);
int hint_sessions_set_threads(HintSessions *w, uint32_t id, const char *owner, const pid_t *tids,
                              size_t n_tids);
int hint_sessions_hint(HintSessions *w, uint32_t id, const char *owner, HintKind hint);
/* Prefer power efficiency (hint_controller_set_efficient()): 1 when that
 * changed, 0 when it was so already. */
int hint_sessions_set_efficient(HintSessions *w, uint32_t id, const char *owner, bool efficient);

/* A session's output now. */
unsigned hint_sessions_output(const HintSessions *w, const HintSession *x);
/* The pool group that output puts its threads in (backend.h), "" when
 * outputs go to uclamp.min or the output is 0. */
void hint_sessions_group(const HintSessions *w, const HintSession *x, char *buf, size_t size);
