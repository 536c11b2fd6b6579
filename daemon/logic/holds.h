/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hold bookkeeping: who holds which group at which boost until when.
 * Pure logic with an explicit clock; the manager owns timers and bus
 * tracking. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define HOLDS_MAX 256U          /* all clients together */
#define HOLDS_PER_UID_MAX 64U   /* all clients of one user but root: one
                                 * user opening many connections cannot
                                 * take the whole table */
#define HOLD_REASON_MAX 128U

typedef struct Hold {
        uint32_t cookie;
        char *group;
        unsigned boost;
        uint64_t deadline;      /* CLOCK_MONOTONIC usec, 0 = none */
        char *owner;            /* unique bus name of the holder */
        uid_t uid;
        char *reason;
        void *userdata;         /* the manager's per-hold data */
} Hold;

typedef struct Holds {
        Hold *holds;
        size_t n;
        unsigned max_per_owner;
} Holds;

void holds_init(Holds *h, unsigned max_per_owner);
void holds_done(Holds *h);

/* -EINVAL bad arguments, -EUSERS owner or its (non-root) UID at its
 * limit, or table full,
 * -EEXIST cookie in use (the caller draws another). */
int holds_add(Holds *h, uint32_t cookie, const char *group, unsigned boost,
              uint64_t deadline, const char *owner, uid_t uid, const char *reason,
              Hold **ret);

/* -ENOENT no such cookie, -EPERM not the owner's. The removed hold's
 * userdata is returned in *ret_userdata. */
int holds_release(Holds *h, uint32_t cookie, const char *owner, void **ret_userdata);

Hold *holds_find(Holds *h, uint32_t cookie);
void holds_remove_at(Holds *h, size_t i);
unsigned holds_count_owner(const Holds *h, const char *owner);

/* Highest boost held on group, 0 if none. */
unsigned holds_max_for_group(const Holds *h, const char *group);

/* Index of the first hold expired at now, or -ENOENT. */
int holds_find_expired(const Holds *h, uint64_t now);

/* Earliest deadline, 0 if none. */
uint64_t holds_next_deadline(const Holds *h);
