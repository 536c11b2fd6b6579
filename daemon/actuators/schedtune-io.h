/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroup work of the schedtune backend: make a group, read and write
 * a value, move a process. Two implementations behind one table:
 *
 *   libcgroup  on the host (root "/"): libcgroup resolves the hierarchy
 *              from the mount table and does the writes;
 *   files      under a root prefix (tests): plain file I/O below
 *              Schedtune.path (schedtune-internal.h).
 *
 * Why two: libcgroup's cgroup_init() reads the hard-wired /proc/mounts
 * and /proc/cgroups and only accepts mounts of type cgroup/cgroup2, so it
 * cannot be pointed at a temporary tree. The seam is chosen once, in the
 * schedtune backend, and the rest of the daemon never sees it. These
 * functions do not log; they return negative errno. */
#pragma once

#include <sys/types.h>

typedef struct Backend Backend;

typedef struct CgroupOps {
        const char *name;
        /* Prepares the hierarchy at Schedtune.path (may be NULL). */
        int (*init)(Backend *b);
        /* Makes group below the hierarchy: 1 if made, 0 if it was there. */
        int (*make_group)(const Backend *b, const char *group);
        /* Removes it (rmdir): -EBUSY while a process is in it. */
        int (*remove_group)(const Backend *b, const char *group);
        int (*read_value)(const Backend *b, const char *group, const char *file,
                          unsigned max, unsigned *ret);
        int (*write_value)(const Backend *b, const char *group, const char *file,
                           unsigned value);
        /* Moves a process with all its threads, through cgroup.procs. */
        int (*attach)(const Backend *b, const char *group, pid_t pid);
        /* Moves one thread, through the group's tasks file. */
        int (*attach_thread)(const Backend *b, const char *group, pid_t tid);
        /* 1 if pid is in the group's cgroup.procs, 0 if not. */
        int (*has_pid)(const Backend *b, const char *group, pid_t pid);
        /* The group pid (or a thread, by its TID) is in now, copied into
         * buf ("root" for the top of the hierarchy); -ESRCH if it is in
         * none. */
        int (*group_of)(const Backend *b, pid_t pid, char *buf, size_t size);
} CgroupOps;

extern const CgroupOps cgroup_ops_libcgroup;
extern const CgroupOps cgroup_ops_files;

/* Maps a libcgroup ECG* code to a negative errno (ECGOTHER carries the
 * system's errno, cgroup_get_last_errno()). 0 stays 0. */
int cgroup_errno_from_ecg(int ecg);
