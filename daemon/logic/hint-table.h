/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Work-session bookkeeping: who opened which session for which threads,
 * their controllers, limits and the report rate limit. Pure logic with an
 * explicit clock (CLOCK_MONOTONIC, ns); the manager checks the threads
 * against /proc, tracks the owners on the bus and applies the outputs. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hint-controller.h"

#define SESSIONS_MAX 128U               /* all clients together */
#define SESSIONS_PER_OWNER_MAX 4U       /* one bus client */
#define SESSIONS_PER_UID_MAX 16U        /* all clients of one user but root */
#define SESSION_THREADS_MAX 32U
/* Reports: a bucket of this many, refilled one per interval; a client that
 * reports every frame of a 120 Hz loop must batch (ADPF's framework sends
 * one report per 166 ms at most). */
#define SESSION_REPORT_BURST 10U
#define SESSION_REPORT_INTERVAL_NS 50000000ULL

typedef struct Session {
        uint32_t id;
        char *owner;            /* unique bus name of the client */
        uid_t uid;
        pid_t pid;              /* the client's process */
        bool any;               /* its threads may be of any process of
                                 * uid, not only of pid */
        pid_t *tids;
        size_t n_tids;
        SessionPid ctl;
        unsigned published;     /* the output last told to the bus */
        unsigned tokens;        /* reports left in the bucket */
        uint64_t refilled;      /* when the bucket was last topped up */
        void *userdata;         /* the manager's per-session data */
} Session;

typedef struct Sessions {
        Session **sessions;
        size_t n;
        uint32_t last_id;
        const SessionsConfig *config;
} Sessions;

void sessions_init(Sessions *s, const SessionsConfig *config);
void sessions_done(Sessions *s);

/* -EINVAL: no owner, bad target, 0 or more than SESSION_THREADS_MAX
 * threads, a tid <= 0 or named twice; -EUSERS: the owner, its (non-root)
 * UID or the table is at its limit. */
int sessions_create(Sessions *s, const char *owner, uid_t uid, pid_t pid, const pid_t *tids,
                    size_t n_tids, uint64_t target_ns, uint64_t now, Session **ret);

Session *sessions_find(const Sessions *s, uint32_t id);

/* -ENOENT no such session, -EPERM not the owner's (owner NULL: anyone's,
 * for the manager). The session's userdata in *ret_userdata. */
int sessions_close(Sessions *s, uint32_t id, const char *owner, void **ret_userdata);

/* Index of the first session of owner, or -ENOENT: the manager closes them
 * one by one when the owner leaves the bus. */
int sessions_find_owner(const Sessions *s, const char *owner);

/* The session's threads become tids (same rules as at creation). */
int sessions_set_threads(Session *x, const pid_t *tids, size_t n_tids);

/* A report: -EBUSY past the rate limit (nothing changes), else what
 * session_pid_report() returns. */
int sessions_report(Session *x, const SessionWork *work, size_t n, uint64_t now);

/* Removes tid from every session; returns how many named it. */
unsigned sessions_forget_thread(Sessions *s, pid_t tid);

/* The largest output, at now, of the sessions naming tid; -ENOENT when no
 * session names it. */
int sessions_thread_output(const Sessions *s, pid_t tid, uint64_t now, unsigned *ret);

/* The earliest session_pid_next_change() of all sessions, 0 for none. */
uint64_t sessions_next_change(const Sessions *s, uint64_t now);
