/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The backend vtable: how a group's boost reaches the kernel. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "schedtune-io.h"
#include "state.h"
#include "log.h"
#include "process.h"

typedef enum ProbeResult {
        PROBE_SUCCESS,          /* usable now */
        PROBE_DEFER,            /* cannot tell yet (e.g. /proc not there) */
        PROBE_FAIL,             /* not on this kernel */
} ProbeResult;

typedef struct Backend Backend;

/* A thread a hint session claimed (backend-threads.c). */
typedef struct BackendThread {
        pid_t tid;
        pid_t tgid;                     /* its process */
        unsigned pool;                  /* boost of its pool group; 0: not in one */
        char home[CLASS_NAME_MAX];      /* its process's group, where it goes back */
} BackendThread;

typedef struct BackendVTable {
        const char *name;
        /* ProbeResult, or negative errno */
        int (*probe)(Backend *b);
        /* Creates or adopts one group per name (groups[0] is root) and
         * records in the state what it found; the caller saves it before
         * the first apply. Backends change the state in memory and mark
         * it dirty: only state.c writes files. */
        int (*start)(Backend *b, const char *const *groups, size_t n);
        int (*apply)(Backend *b, const char *group, unsigned boost);
        /* Moves a process (all its threads) into group; "root" moves it
         * back. Records it in the state's placed list. */
        int (*attach)(Backend *b, const char *group, const ProcessId *id);
        /* Puts back the boosts start() found (backend_restore() moves the
         * placed processes back first), removes the groups boostd made
         * that are empty, and forgets the kernel state. */
        int (*restore)(Backend *b);
        /* One group's class is gone (backend_release() moved its placed
         * processes back first): its boost back, the group removed if
         * boostd made it and it is empty, and forgotten. */
        int (*release)(Backend *b, const char *group);
        /* The unit whose cgroup v2 directory is cgroup (a path below the
         * v2 root, of a system manager's unit) gets group's boost in place,
         * "root" gives it back (unit-boost.h); NULL where the backend
         * boosts processes only. */
        int (*attach_unit)(Backend *b, const char *group, const char *cgroup);
        /* The group a process is in now, copied into buf; NULL when the
         * backend cannot tell. */
        int (*group_of)(Backend *b, pid_t pid, char *buf, size_t size);

        /* Threads of hint sessions (backend-threads.c); each slot NULL
         * where the backend does nothing for them. */
        /* Whether a thread can be moved alone into a pool group now (the
         * schedtune backend, once started); NULL: no pool. */
        bool (*has_pool)(const Backend *b);
        /* Moves claimed thread t alone into the pool group of boost (0:
         * back into its process's group) and records it in t->pool; only
         * where has_pool() says yes. */
        int (*thread_pool)(Backend *b, BackendThread *t, unsigned boost);
        /* Thread t left its last hint session and is forgotten already (t
         * is the caller's copy): what it had goes back to it, i.e. its
         * process's group out of a pool group, or its group's util_min. */
        int (*thread_release)(Backend *b, BackendThread *t);
        /* Empties the pool groups of the threads no session claims and
         * removes those left with no claimed thread, setting
         * Backend.pool_busy if the kernel refused one. */
        void (*pool_sweep)(Backend *b);

        /* Frees the backend's own fields (backend_data()); required of a
         * backend that has some. */
        void (*done)(void *data);
} BackendVTable;

struct Backend {
        const BackendVTable *vt;
        char *root;             /* prefix for every path, "/" in production */
        char *mount_point;      /* schedtune hierarchy, below root; configured,
                                 * so given before a backend is chosen */
        char *proc_root;        /* where processes are looked up */
        State *state;           /* the manager's */
        const LogContext *log;  /* the manager's */
        bool restore_found;     /* RestoreOnStop=found */
        /* The fields of one backend, private to its files: made at their
         * first use, which may come before backend_select() (a test seam,
         * UclampGroup=); data_vt says whose they are. */
        void *data;
        const BackendVTable *data_vt;
        /* threads of hint sessions (backend-threads.c) */
        BackendThread *threads;
        size_t n_threads;
        /* a pool group with no claimed thread could not be removed yet
         * (EBUSY: a thread was still exiting): backend_pool_retry() */
        bool pool_busy;
        /* what the last probe found (backend_probe_says()), and why
         * backend_select() chose the backend it did: its probe's finding,
         * then each one it tried before and why not */
        char probe_says[160];
        char reason[512];
        /* A unit's cgroup had no cpu.boost (unit-boost.c): asks for the
         * cpu controller there, then calls unit_boost_retry(); NULL:
         * nobody to ask. */
        void (*want_cpu)(Backend *b, const char *cgroup, void *userdata);
        void *want_cpu_userdata;
};

extern const BackendVTable backend_schedtune;
extern const BackendVTable backend_schedtune2;
extern const BackendVTable backend_uclamp;
extern const BackendVTable backend_none;

Backend *backend_new(const char *root, const char *mount_point, const char *proc_root,
                     State *state, bool restore_found, const LogContext *log);
Backend *backend_free(Backend *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(Backend *, backend_free);

/* Picks the first backend, in priority order, whose probe succeeds;
 * "auto" tries schedtune, schedtune2, uclamp, none; a name tries only that one and
 * fails with -EOPNOTSUPP if its probe fails. */
int backend_select(Backend *b, const char *name);

const char *backend_name(const Backend *b);
/* Why backend_select() chose it ("" before). */
const char *backend_reason(const Backend *b);
/* A probe's finding, in a few words ("the schedtune controller is in
 * /proc/cgroups"): backend_select() puts it in the reason. */
void backend_probe_says(Backend *b, const char *fmt, ...) _printf_(2, 3);

/* The fields vt's backend keeps in b, or NULL: none yet, or those of
 * another backend. */
void *backend_data(const Backend *b, const BackendVTable *vt);
/* Gives b the fields of vt's backend, made by its file; those another
 * backend left go first, through its done(). */
void backend_set_data(Backend *b, const BackendVTable *vt, void *data);

/* Calls set(tid, value) for each thread of process pid that no hint
 * session claimed: -ESRCH for a process that is gone, else the first
 * error of a thread that is still there. The per-task backends' walk. */
int backend_set_threads(Backend *b, pid_t pid, int (*set)(pid_t tid, unsigned value), unsigned value);

/* backend_set_threads() of every process placed in group that is still
 * the process placed; a failure is logged and the next one goes on. */
void backend_set_placed(Backend *b, const char *group, int (*set)(pid_t tid, unsigned value),
                        unsigned value);
/* A claimed thread's process's class value through set (the class's
 * boost, through map if not NULL); 0 when its process is not placed or
 * its class has no boost yet. */
int backend_thread_set_class(Backend *b, const BackendThread *t, int (*set)(pid_t tid, unsigned value),
                             unsigned (*map)(unsigned boost));

/* The per-task backends' attach(): every thread of the process gets its
 * class's value through set (the class's boost, through map if not NULL;
 * 0 for root), and the state records where it was placed. */
int backend_attach_threads(Backend *b, const char *group, const ProcessId *id,
                           int (*set)(pid_t tid, unsigned value), unsigned (*map)(unsigned boost));

/* Moves the processes boostd placed in group (NULL: in any group) back
 * to root: only one that is still the process placed (start time) and
 * still in that group; one that exited, whose PID was reused or that was
 * moved by hand since is forgotten and left where it is. The one path
 * for stop and for a group that a reload removed. */
int backend_unplace(Backend *b, const char *group);
/* backend_unplace() of every group, then the backend's restore(). */
int backend_restore(Backend *b);
/* A class went away on reload: backend_unplace() of its group, then the
 * backend's release(). */
int backend_release(Backend *b, const char *group);

/* Threads of hint sessions. A claimed thread is left alone when its
 * process is placed: the uclamp backend does not set its util_min, and
 * the schedtune backend, whose write to cgroup.procs moves every thread
 * of a process, moves it back into its pool group at once.
 *
 * The pool is how a session's output reaches a thread on SchedTune
 * without uclamp: groups "session.20" to "session.100" (the dot keeps
 * their names apart from every class name), made on first use with that
 * boost, the thread moved alone through their "tasks" file. */
#define BACKEND_POOL_STEP 20U
/* The pool group's boost for a session output (0..1024): the step at or
 * above it, 0 for 0. */
unsigned backend_pool_boost(unsigned util_min);
/* The pool group of boost: "session.BOOST". */
void backend_pool_name(unsigned boost, char *buf, size_t size);
/* Whether the backend has a pool (schedtune). */
bool backend_has_pool(const Backend *b);
int backend_thread_claim(Backend *b, pid_t tid);
bool backend_thread_claimed(const Backend *b, pid_t tid);
/* The claimed thread tid, or NULL. */
BackendThread *backend_thread_find(const Backend *b, pid_t tid);
/* For a claimed thread in a pool group, its process's group (1), copied
 * into buf; 0 otherwise. A process's group is its main thread's: the
 * schedtune backend asks this first, so that a session naming the main
 * thread does not make the process look moved. */
int backend_thread_home(const Backend *b, pid_t tid, char *buf, size_t size);
/* Moves a claimed thread into the pool group of boost (a multiple of
 * BACKEND_POOL_STEP; 0: back into its process's group). -EOPNOTSUPP
 * without a pool, -ENOSPC at the kernel's group limit. */
int backend_thread_pool(Backend *b, pid_t tid, unsigned boost);
/* Forgotten, then given back what it had (the backend's
 * thread_release()): its process's group if it was in a pool group, and
 * the pool groups then emptied of threads no session claims (threads and
 * processes a pooled thread created start in its group) and those left
 * with no claimed thread removed; on the uclamp backend its group's
 * util_min. */
int backend_thread_release(Backend *b, pid_t tid);
/* The claimed thread exited, and its TID may be another thread's now:
 * forgotten, nothing moved or written for it; the pool groups are then
 * swept as after a release (a group with no claimed thread left goes). */
void backend_thread_forget(Backend *b, pid_t tid);
/* Its process was moved into group (which moved every thread): the
 * claimed threads' home, and back into their pool groups. */
void backend_threads_moved(Backend *b, pid_t pid, const char *group);
/* Whether a pool group with no claimed thread is still there because the
 * kernel refused its removal (EBUSY): a thread of it was still exiting
 * when its session closed (its client's bus connection goes before the
 * exiting task leaves its cgroup). backend_pool_retry() sweeps again. */
bool backend_pool_busy(const Backend *b);
void backend_pool_retry(Backend *b);
/* The pool groups emptied of the threads no session claims: those a
 * pooled thread created since start in its group, and must not keep its
 * boost; hint sessions sweep at each call and at their timer. */
void backend_pool_sweep(Backend *b);

/* Mounts (or finds) the schedtune hierarchy; 0 also when the kernel has
 * no SchedTune (nothing to do). */
int backend_schedtune_mount(Backend *b);

/* The schedtune backend's seams, for tests; each setter makes its fields
 * if need be (-ENOMEM). The cgroup work is chosen at start unless set:
 * libcgroup on the host, plain files under a root prefix (see
 * schedtune-io.h). Set before start to replace it, after to wrap what
 * start chose; the getter gives NULL until then. */
int backend_schedtune_set_cgroup_ops(Backend *b, const CgroupOps *ops);
const CgroupOps *backend_schedtune_cgroup_ops(const Backend *b);
/* Another cgroup v1 controller in place of schedtune, with a number file
 * in place of schedtune.boost; both are kept, not copied (literals). */
int backend_schedtune_set_controller(Backend *b, const char *controller, const char *boost_file);
/* The hierarchy at path (copied), as if found there: start neither looks
 * for it nor mounts it. */
int backend_schedtune_set_path(Backend *b, const char *path);
/* The hierarchy's path once found or mounted, NULL before. */
const char *backend_schedtune_path(const Backend *b);
/* Whether boostd mounted the hierarchy (rather than adopting one). */
bool backend_schedtune_mounted(const Backend *b);

/* One thread's util_min, the uclamp backend's seam for tests. */
typedef int (*UclampSetUtilMin)(pid_t tid, unsigned util_min);
/* The uclamp backend's settings, before backend_select() or after; each
 * makes its fields if need be (-ENOMEM). The seam: sched_setattr() unless
 * set (probe keeps one set before it). */
int backend_uclamp_set_util_min_hook(Backend *b, UclampSetUtilMin fn);
UclampSetUtilMin backend_uclamp_util_min_hook(const Backend *b);
/* UclampGroup=: a cgroup v2 group boostd owns, resolved below root
 * (copied), whose children per class get cpu.uclamp.min. */
int backend_uclamp_set_group(Backend *b, const char *group);

/* One thread's own boost (0..100), the schedtune2 backend's seam for
 * tests: sched_setattr() with SCHED_FLAG_UTIL_BOOST unless set. */
typedef int (*TaskSetBoost)(pid_t tid, unsigned boost);
int backend_schedtune2_set_boost_hook(Backend *b, TaskSetBoost fn);

/* uclamp mapping of a boost percentage to util_min (0..1024). */
unsigned uclamp_from_boost(unsigned boost);
/* cpu.uclamp.min is a percentage with two decimals, "12.34": hundredths
 * to text and back (0..10000). */
void uclamp_percent_format(unsigned hundredths, char *buf, size_t size);
int uclamp_percent_parse(const char *s, unsigned *ret_hundredths);
