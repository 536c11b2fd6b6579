/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint-session bookkeeping: who opened which session for which threads,
 * their controllers, limits and the report rate limit. Pure logic with an
 * explicit clock (CLOCK_MONOTONIC, ns); the manager checks the threads
 * against /proc, tracks the owners on the bus and applies the outputs. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hint-controller.h"

#define HINT_SESSIONS_MAX 128U               /* all clients together */
#define HINT_SESSIONS_PER_OWNER_MAX 4U       /* one bus client */
#define HINT_SESSIONS_PER_UID_MAX 16U        /* all clients of one user but root */
#define HINT_THREADS_MAX 32U
/* Calls of a client (reports and the other Session1 calls): a bucket of
 * this many, refilled one per interval, for all its sessions; a client that
 * reports every frame of a 120 Hz loop must batch (ADPF's framework sends
 * one report per 166 ms at most). */
#define HINT_REPORT_BURST 10U
#define HINT_REPORT_INTERVAL_NS 50000000ULL

typedef struct HintSession {
        uint32_t id;
        char *owner;            /* unique bus name of the client */
        uid_t uid;
        pid_t pid;              /* the client's process */
        bool any;               /* its threads may be of any process of
                                 * uid, not only of pid */
        uint64_t pid_start;     /* its start time: pid is pinned by it */
        pid_t *tids;
        uint64_t *starts;       /* each thread's start time when it was
                                 * named, 0 until hint_table_pin_threads() */
        size_t n_tids;
        HintController ctl;
        unsigned published;     /* the output last told to the bus */
        void *userdata;         /* the manager's per-session data */
} HintSession;

/* A client's bucket of calls, one for all its sessions: kept while it
 * has sessions, and after until it would be full again (then a fresh
 * one is the same), so that closing and reopening gives nothing. */
typedef struct HintClient {
        char *owner;
        unsigned tokens;        /* calls left */
        uint64_t refilled;      /* when the bucket was last topped up */
} HintClient;

/* Which sessions name a thread: sorted by tid. */
typedef struct HintNaming {
        pid_t tid;
        HintSession *x;
} HintNaming;

typedef struct HintTable {
        HintSession **sessions;
        size_t n;
        HintClient *clients;
        size_t n_clients;
        /* every (tid, session), sorted by tid: room for all there may be */
        HintNaming index[HINT_SESSIONS_MAX * HINT_THREADS_MAX];
        size_t n_index;
        uint32_t last_id;
        const HintConfig *config;
} HintTable;

void hint_table_init(HintTable *s, const HintConfig *config);
void hint_table_done(HintTable *s);

/* -EINVAL: no owner, bad target, 0 or more than HINT_THREADS_MAX
 * threads, a tid <= 0 or named twice; -EUSERS: the owner, its (non-root)
 * UID or the table is at its limit. */
int hint_table_create(HintTable *s, const char *owner, uid_t uid, pid_t pid, const pid_t *tids,
                    size_t n_tids, uint64_t target_ns, uint64_t now, HintSession **ret);

HintSession *hint_table_find(const HintTable *s, uint32_t id);

/* -ENOENT no such session, -EPERM not the owner's (owner NULL: anyone's,
 * for the manager). The session's userdata in *ret_userdata. */
int hint_table_close(HintTable *s, uint32_t id, const char *owner, void **ret_userdata);

/* Index of the first session of owner, or -ENOENT: the manager closes them
 * one by one when the owner leaves the bus. */
int hint_table_find_owner(const HintTable *s, const char *owner);

/* The session's threads become tids (same rules as at creation),
 * unpinned. */
int hint_table_set_threads(HintTable *s, HintSession *x, const pid_t *tids, size_t n_tids);

/* The start times of the session's threads, in the order of x->tids,
 * taken when they were named: a TID is that thread, not one that took
 * its number after it exited. */
void hint_table_pin_threads(HintSession *x, const uint64_t *starts);

/* Removes the i-th thread of x (one that is gone, or no longer its
 * owner's). */
void hint_table_drop_thread(HintTable *s, HintSession *x, size_t i);

/* Whether a call of owner's may go ahead at now: 0, or -EBUSY when its
 * bucket is empty (HINT_REPORT_BURST calls, then one per
 * HINT_REPORT_INTERVAL_NS); -ENOMEM. hint_table_spend() takes the token
 * once the call did what it asked: one that fails costs nothing. */
int hint_table_may_call(HintTable *s, const char *owner, uint64_t now);
void hint_table_spend(HintTable *s, const char *owner);

/* A report, a call like any other (hint_table_may_call()): -EBUSY past
 * the rate limit (nothing changes), else what hint_controller_report()
 * returns. */
int hint_table_report(HintTable *s, HintSession *x, const HintWork *work, size_t n, uint64_t now);

/* The largest output, at now, of the sessions naming tid; -ENOENT when no
 * session names it. O(log n) in the sessions' threads. */
int hint_table_thread_output(const HintTable *s, pid_t tid, uint64_t now, unsigned *ret);

/* The sessions naming tid: n entries of the index from the one returned
 * (NULL and 0 when none does). Valid until the next change of who names
 * which thread. */
const HintNaming *hint_table_namings(const HintTable *s, pid_t tid, size_t *ret_n);

/* Where tid is in x->tids; x must name it. */
size_t hint_table_thread_index(const HintSession *x, pid_t tid);

/* The earliest hint_controller_next_change() of all sessions, 0 for none. */
uint64_t hint_table_next_change(const HintTable *s, uint64_t now);
