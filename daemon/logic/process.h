/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Processes: their identity (PID and start time, pidfd) and their facts
 * from /proc (or a test tree); does not log. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A process is named by PID and start time (field 22 of stat), so that a
 * reused PID is never mistaken for the process that was meant. */
typedef struct ProcessId {
        pid_t pid;
        uint64_t start_time;
} ProcessId;

int proc_get_start_time(const char *proc_root, pid_t pid, uint64_t *ret);
/* The parent's PID (0 for PID 1 and kernel threads' parent). */
int proc_get_parent(const char *proc_root, pid_t pid, pid_t *ret);
int proc_get_uid(const char *proc_root, pid_t pid, uid_t *ret);
/* The process a thread belongs to (its thread group's leader). */
int proc_get_tgid(const char *proc_root, pid_t tid, pid_t *ret);

/* The cgroup v2 path of a process (its "0::" line), NULL if it has none. */
int proc_get_cgroup(const char *proc_root, pid_t pid, char **ret);

/* What the rules match a process by. */
typedef struct ProcessInfo {
        pid_t pid;
        const char *comm;       /* /proc/PID/comm */
        const char *exe;        /* /proc/PID/exe target, NULL if unknown */
        const char *cgroup;     /* cgroup v2 path, e.g. /system.slice/foo.service */
        uid_t uid;
} ProcessInfo;

/* Fills info with comm, exe, cgroup (v2 line) and uid; the strings are
 * allocated in *ret_buf, freed by the caller. */
typedef struct ProcessInfoBuf {
        char *comm;
        char *exe;
        char *cgroup;
} ProcessInfoBuf;

int proc_get_info(const char *proc_root, pid_t pid, ProcessInfo *info, ProcessInfoBuf *buf);
void process_info_buf_done(ProcessInfoBuf *buf);

/* 1 if pid is alive with the same start time, 0 if gone or reused. */
int process_id_is_current(const char *proc_root, const ProcessId *id);

/* 1 if the process is gone: no such PID, the PID reused, or no task left
 * that has not exited (zombies wait to be reaped); 0 if it lives. Its
 * leader may have exited while it lives (pthread_exit() of the main
 * thread): *ret_leader_exited says so. */
int process_id_is_gone(const char *proc_root, const ProcessId *id, bool *ret_leader_exited);

int pidfd_open_pid(pid_t pid);
/* The PID a pidfd refers to: -ESRCH if the process exited, -EBADF if fd is
 * not a pidfd. */
int pidfd_get_pid(int fd, pid_t *ret);
