/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading process facts from /proc (or a test tree); does not log. */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "macro.h"
#include "process.h"
#include "util.h"

static char *proc_path(const char *proc_root, pid_t pid, const char *file) {
        char *p;

        if (asprintf(&p, "%s/%d/%s", proc_root, (int) pid, file) < 0)
                return NULL;
        return p;
}

/* The state (field 3), parent (field 4) and start time (field 22) of a
 * stat file. */
static int stat_read(const char *path, char *ret_state, pid_t *ret_ppid, uint64_t *ret_start_time) {
        _cleanup_(freep) char *line = NULL;
        const char *s;
        int r;

        r = read_one_line(path, &line);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;

        /* comm may contain spaces and ')': fields start after the last ')' */
        s = strrchr(line, ')');
        if (!s)
                return -EIO;
        s++;
        for (int field = 3; field <= 22; field++) {
                while (*s == ' ')
                        s++;
                if (field == 3 && ret_state)
                        *ret_state = *s;
                if (field == 4 && ret_ppid) {
                        int v;

                        if (sscanf(s, "%d", &v) != 1)
                                return -EIO;
                        *ret_ppid = v;
                }
                if (field == 22) {
                        unsigned long long v;

                        if (sscanf(s, "%llu", &v) != 1)
                                return -EIO;
                        if (ret_start_time)
                                *ret_start_time = v;
                        return 0;
                }
                s = strchr(s, ' ');
                if (!s)
                        return -EIO;
        }
        return -EIO;
}

/* The parent (field 4) and start time (field 22) of a process. */
static int proc_stat(const char *proc_root, pid_t pid, pid_t *ret_ppid, uint64_t *ret_start_time) {
        _cleanup_(freep) char *path = NULL;

        if (pid <= 0)
                return -ESRCH;
        path = proc_path(proc_root, pid, "stat");
        if (!path)
                return -ENOMEM;
        return stat_read(path, NULL, ret_ppid, ret_start_time);
}

int proc_get_start_time(const char *proc_root, pid_t pid, uint64_t *ret) {
        return proc_stat(proc_root, pid, NULL, ret);
}

int proc_get_parent(const char *proc_root, pid_t pid, pid_t *ret) {
        return proc_stat(proc_root, pid, ret, NULL);
}

static bool state_is_exited(char state) {
        return state == 'Z' || state == 'X' || state == 'x';
}

int process_id_is_gone(const char *proc_root, const ProcessId *id, bool *ret_leader_exited) {
        _cleanup_(freep) char *path = NULL, *task = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        uint64_t start;
        char state = 0;
        int r;

        if (ret_leader_exited)
                *ret_leader_exited = false;
        if (id->pid <= 0)
                return 1;
        path = proc_path(proc_root, id->pid, "stat");
        task = proc_path(proc_root, id->pid, "task");
        if (!path || !task)
                return -ENOMEM;
        r = stat_read(path, &state, NULL, &start);
        if (r == -ESRCH)
                return 1;
        if (r < 0)
                return r;
        if (start != id->start_time)
                return 1;               /* the PID is someone else's now */
        if (!state_is_exited(state))
                return 0;

        /* The leader exited: the process lives while another thread does. */
        if (ret_leader_exited)
                *ret_leader_exited = true;
        d = opendir(task);
        if (!d)
                return errno == ENOENT ? 1 : -errno;
        while ((de = readdir(d))) {
                _cleanup_(freep) char *p = NULL;
                unsigned tid;

                if (parse_uint(de->d_name, INT32_MAX, &tid) < 0 || (pid_t) tid == id->pid)
                        continue;
                if (asprintf(&p, "%s/%u/stat", task, tid) < 0)
                        return -ENOMEM;
                if (stat_read(p, &state, NULL, NULL) >= 0 && !state_is_exited(state))
                        return 0;
        }
        return 1;
}

/* The first number of one "Name:" line of /proc/PID/status. */
static int proc_status_uint(const char *proc_root, pid_t pid, const char *name, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *line = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        size_t n = 0, l = strlen(name);

        path = proc_path(proc_root, pid, "status");
        if (!path)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while (getline(&line, &n, f) > 0)
                if (strncmp(line, name, l) == 0 && line[l] == ':')
                        return sscanf(line + l + 1, "%u", ret) == 1 ? 0 : -EIO;
        return -EIO;
}

int proc_get_uid(const char *proc_root, pid_t pid, uid_t *ret) {
        unsigned v;
        int r = proc_status_uint(proc_root, pid, "Uid", &v);

        if (r >= 0)
                *ret = (uid_t) v;
        return r;
}

int proc_get_tgid(const char *proc_root, pid_t tid, pid_t *ret) {
        unsigned v;
        int r = proc_status_uint(proc_root, tid, "Tgid", &v);

        if (r >= 0)
                *ret = (pid_t) v;
        return r;
}

int proc_get_cgroup(const char *proc_root, pid_t pid, char **ret) {
        _cleanup_(freep) char *path = NULL, *line = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        size_t n = 0;
        ssize_t l;

        path = proc_path(proc_root, pid, "cgroup");
        if (!path)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -ESRCH : -errno;
        while ((l = getline(&line, &n, f)) > 0) {
                if (line[l - 1] == '\n')
                        line[l - 1] = '\0';
                if (strncmp(line, "0::", 3) == 0) {
                        *ret = strdup(line + 3);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        *ret = NULL;
        return 0;
}

void process_info_buf_done(ProcessInfoBuf *buf) {
        free(buf->comm);
        free(buf->exe);
        free(buf->cgroup);
        memset(buf, 0, sizeof(*buf));
}

int proc_get_info(const char *proc_root, pid_t pid, ProcessInfo *info, ProcessInfoBuf *buf) {
        _cleanup_(freep) char *path = NULL;
        char exe[4096];
        ssize_t l;
        int r;

        memset(info, 0, sizeof(*info));
        memset(buf, 0, sizeof(*buf));
        info->pid = pid;

        path = proc_path(proc_root, pid, "comm");
        if (!path)
                return -ENOMEM;
        r = read_one_line(path, &buf->comm);
        if (r < 0)
                goto fail;
        r = proc_get_uid(proc_root, pid, &info->uid);
        if (r < 0)
                goto fail;
        r = proc_get_cgroup(proc_root, pid, &buf->cgroup);
        if (r < 0)
                goto fail;

        free(path);
        path = proc_path(proc_root, pid, "exe");
        if (!path) {
                r = -ENOMEM;
                goto fail;
        }
        l = readlink(path, exe, sizeof(exe) - 1);
        if (l > 0) {            /* kernel threads and other users' processes may have none */
                exe[l] = '\0';
                buf->exe = strdup(exe);
        }

        info->comm = buf->comm;
        info->exe = buf->exe;
        info->cgroup = buf->cgroup;
        return 0;
fail:
        process_info_buf_done(buf);
        return r == -ENOENT ? -ESRCH : r;
}

int process_id_is_current(const char *proc_root, const ProcessId *id) {
        uint64_t st;
        int r;

        r = proc_get_start_time(proc_root, id->pid, &st);
        if (r == -ESRCH)
                return 0;
        if (r < 0)
                return r;
        return st == id->start_time;
}

int pidfd_get_pid(int fd, pid_t *ret) {
        _cleanup_(fclosep) FILE *f = NULL;
        char path[64], line[128];
        int pid;

        snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? -EBADF : -errno;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, "Pid:\t%d", &pid) == 1) {
                        if (pid <= 0)
                                return -ESRCH;  /* -1: exited; 0: another namespace */
                        *ret = pid;
                        return 0;
                }
        return -EBADF;                          /* not a pidfd */
}

int pidfd_open_pid(pid_t pid) {
        int fd;

        fd = (int) syscall(SYS_pidfd_open, pid, 0);
        return fd < 0 ? -errno : fd;
}
