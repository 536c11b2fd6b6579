/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Work sessions at work: the session table (sessions.c), what each thread
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
        unsigned previous;      /* its uclamp.min before its first session */
        unsigned applied;       /* what it was given last */
} AppliedThread;

typedef struct WorkSessions {
        Sessions sessions;
        SessionsConfig config;          /* a copy: a reload may free the old */
        const ThreadClampOps *clamp;
        char *root;                     /* of the clamp files */
        /* the manager's: told which threads are sessions', and their pool
         * (backend.h) where outputs go without uclamp; NULL: none */
        Backend *backend;
        bool pool;                      /* outputs go to the pool */
        char *proc_root;                /* where threads are looked up */
        AppliedThread *applied;
        size_t n_applied;
        sd_event *event;
        sd_event_source *timer;
        unsigned pool_retries;          /* of a pool group's removal */
        const LogContext *log;
        /* told when a session's output (its Boost property) changed,
         * and when a session was closed (its Session.userdata given) */
        void *userdata;
        void (*output_changed)(void *userdata, const Session *x);
        void (*closed)(void *userdata, uint32_t id, void *session_userdata);
} WorkSessions;

int work_sessions_init(WorkSessions *w, const char *root, const char *proc_root, sd_event *event,
                       const SessionsConfig *config, const LogContext *log);
/* The backend the threads are claimed from (see backend.h), and so
 * whether there is a pool: set before the first session. */
void work_sessions_set_backend(WorkSessions *w, Backend *b);
/* Gives every thread its value back. */
void work_sessions_done(WorkSessions *w);
/* New gains and bounds for every session; outputs are applied again. */
void work_sessions_reconfigure(WorkSessions *w, const SessionsConfig *config);

/* Whether every tid is a thread of process pid. */
bool work_sessions_threads_of(const WorkSessions *w, pid_t pid, const pid_t *tids, size_t n_tids);

/* Every tid must be a thread of process pid, or with any a thread of a
 * process of uid (-ESRCH otherwise); then as sessions_create(). The
 * threads run at the initial output at once. */
int work_sessions_create(WorkSessions *w, const char *owner, uid_t uid, pid_t pid, bool any,
                         const pid_t *tids, size_t n_tids, uint64_t target_ns, uint32_t *ret_id);
/* owner NULL: the manager's own close (its client left). */
int work_sessions_close(WorkSessions *w, uint32_t id, const char *owner);
/* Closes every session of owner; returns how many. */
unsigned work_sessions_close_owner(WorkSessions *w, const char *owner);

/* The calls of a session's owner: -ENOENT no such session, -EPERM another
 * client's, then what sessions.c returns. */
int work_sessions_report(WorkSessions *w, uint32_t id, const char *owner, const SessionWork *work,
                         size_t n);
int work_sessions_set_target(WorkSessions *w, uint32_t id, const char *owner, uint64_t target_ns);
int work_sessions_set_threads(WorkSessions *w, uint32_t id, const char *owner, const pid_t *tids,
                              size_t n_tids);
int work_sessions_hint(WorkSessions *w, uint32_t id, const char *owner, SessionHint hint);

/* A session's output now. */
unsigned work_sessions_output(const WorkSessions *w, const Session *x);
/* The pool group that output puts its threads in (backend.h), "" when
 * outputs go to uclamp.min or the output is 0. */
void work_sessions_group(const WorkSessions *w, const Session *x, char *buf, size_t size);
