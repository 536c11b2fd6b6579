/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The backend vtable: how a group's boost reaches the kernel. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "cgroup-ops.h"
#include "journal.h"
#include "log.h"
#include "process.h"

typedef enum ProbeResult {
        PROBE_SUCCESS,          /* usable now */
        PROBE_DEFER,            /* cannot tell yet (e.g. /proc not there) */
        PROBE_FAIL,             /* not on this kernel */
} ProbeResult;

typedef struct Backend Backend;

typedef struct BackendVTable {
        const char *name;
        /* ProbeResult, or negative errno */
        int (*probe)(Backend *b);
        /* Creates or adopts one group per name (groups[0] is root) and
         * records in the journal what it found, before any change. */
        int (*start)(Backend *b, const char *const *groups, size_t n);
        int (*apply)(Backend *b, const char *group, unsigned boost);
        /* Moves a process (all its threads) into group; "root" moves it
         * back. Records it in the journal's placed list and marks the
         * journal dirty, without saving it: the caller does. */
        int (*attach)(Backend *b, const char *group, const ProcessId *id);
        /* Puts back what start() found; moves placed PIDs back to root. */
        int (*restore)(Backend *b);
        /* The group a process is in now, copied into buf; NULL when the
         * backend cannot tell. */
        int (*group_of)(Backend *b, pid_t pid, char *buf, size_t size);
} BackendVTable;

struct Backend {
        const BackendVTable *vt;
        char *root;             /* prefix for every path, "/" in production */
        char *mount_point;      /* schedtune hierarchy, below root */
        char *path;             /* resolved hierarchy path */
        char *proc_root;        /* where processes are looked up */
        Journal *journal;       /* the manager's */
        const LogContext *log;  /* the manager's */
        bool restore_found;     /* RestoreOnStop=found */
        bool mounted;           /* boostd mounted the hierarchy */
        /* schedtune: how the cgroup work is done (libcgroup on the host,
         * files under a root prefix; see cgroup-ops.h), the controller and
         * its boost file */
        const CgroupOps *cgroup;
        const char *controller;
        const char *boost_file;
        /* uclamp: sets util_min of one task; a seam for tests */
        int (*set_util_min)(pid_t tid, unsigned util_min);
        /* uclamp: a cgroup v2 group boostd owns (resolved, below root), whose
         * children per class get cpu.uclamp.min; NULL = none */
        char *uclamp_group;
};

extern const BackendVTable backend_schedtune;
extern const BackendVTable backend_uclamp;
extern const BackendVTable backend_none;

Backend *backend_new(const char *root, const char *mount_point, const char *proc_root,
                     Journal *journal, bool restore_found, const LogContext *log);
Backend *backend_free(Backend *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(Backend *, backend_free);

/* Picks the first backend, in priority order, whose probe succeeds;
 * "auto" tries schedtune, uclamp, none; a name tries only that one and
 * fails with -EOPNOTSUPP if its probe fails. */
int backend_select(Backend *b, const char *name);

const char *backend_name(const Backend *b);

/* Mounts (or finds) the schedtune hierarchy; 0 also when the kernel has
 * no SchedTune (nothing to do). */
int backend_schedtune_mount(Backend *b);

/* uclamp mapping of a boost percentage to util_min (0..1024). */
unsigned uclamp_from_boost(unsigned boost);
/* cpu.uclamp.min is a percentage with two decimals, "12.34": hundredths
 * to text and back (0..10000). */
void uclamp_percent_format(unsigned hundredths, char *buf, size_t size);
int uclamp_percent_parse(const char *s, unsigned *ret_hundredths);
