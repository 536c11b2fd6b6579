/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune backend's own fields and what its files
 * (backend-schedtune.c, schedtune-pool.c, schedtune-io-files.c,
 * schedtune-io-libcgroup.c) call of each other; no other module includes
 * it. Tests reach the fields through the setters in backend.h. */
#pragma once

#include <stdbool.h>

#include "backend.h"
#include "schedtune-io.h"

typedef struct Schedtune {
        /* how the cgroup work is done (libcgroup on the host, files under
         * a root prefix; see schedtune-io.h): chosen at start unless set */
        const CgroupOps *cgroup;
        /* the controller and its boost file ("schedtune",
         * "schedtune.boost"; another controller in a test) */
        const char *controller;
        const char *boost_file;
        char *path;             /* resolved hierarchy path; NULL until found or mounted */
        bool mounted;           /* boostd mounted the hierarchy */
} Schedtune;

/* b's schedtune fields, made at their first use; NULL if out of memory. */
Schedtune *schedtune_get(Backend *b);

/* b's schedtune fields, NULL before their first use: the cgroup work
 * (CgroupOps) runs only after the backend's start made them. */
static inline const Schedtune *SCHEDTUNE(const Backend *b) {
        return backend_data(b, &backend_schedtune);
}

/* schedtune-pool.c: the pool groups of hint sessions' threads (the slots
 * of BackendVTable of the same names). */
bool schedtune_has_pool(const Backend *b);
int schedtune_thread_pool(Backend *b, BackendThread *t, unsigned boost);
int schedtune_thread_release(Backend *b, BackendThread *t);
void schedtune_pool_sweep(Backend *b);
/* The pool groups that are there, emptied and removed: at start those a
 * crash left (each thread to the group the journal has its process in,
 * else root), at stop boostd's own. */
void schedtune_pool_clear(Backend *b);
