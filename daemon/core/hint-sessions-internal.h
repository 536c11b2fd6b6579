/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What hint-sessions.c and hint-threads.c call of each other; no other
 * module includes it. The types are hint-sessions.h's, named here only:
 * including it would make the two modules a loop. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct HintSessions HintSessions;
typedef struct AppliedThread AppliedThread;

/* Whether each of tids may be named by a session of uid made for pid
 * (any: for any process of uid), their start times in starts: -ESRCH for
 * one that may not, -EINVAL for too many. */
int hint_threads_allowed(const HintSessions *w, pid_t pid, uid_t uid, bool any, const pid_t *tids, size_t n,
                         uint64_t *starts);
/* Gives one thread (tid, started at start) its sessions' output,
 * remembering and journaling what it had before. */
int hint_thread_apply(HintSessions *w, pid_t tid, uint64_t start, uint64_t now);
/* Each thread's value from the sessions that name it now (checked
 * again first), or its own value back when none does. */
void hint_threads_apply(HintSessions *w, const pid_t *tids, size_t n, uint64_t now);
/* The thread leaves its last session: its value back, if it is still
 * the thread it was. */
void hint_thread_release(HintSessions *w, AppliedThread *a);
