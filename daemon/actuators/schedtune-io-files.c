/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroup work as plain file I/O below Schedtune.path: the seam that lets
 * the unit and D-Bus tests run against a temporary tree (see
 * schedtune-io.h). */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "schedtune-internal.h"
#include "schedtune-io.h"
#include "util.h"

static char *group_file(const Backend *b, const char *group, const char *file) {
        const char *path = SCHEDTUNE(b)->path;
        _cleanup_(freep) char *d = streq(group, "root") ? strdup(path) : path_join(path, group);

        if (!d)
                return NULL;
        return file ? path_join(d, file) : TAKE_PTR(d);
}

static int files_make_group(const Backend *b, const char *group) {
        _cleanup_(freep) char *d = group_file(b, group, NULL), *procs = NULL, *boost = NULL;
        int r;

        if (!d)
                return -ENOMEM;
        if (mkdir(d, 0755) < 0)
                return errno == EEXIST ? 0 : -errno;
        (void) chmod(d, 0755);          /* as on cgroupfs: see the libcgroup side */
        /* What the kernel fills in on cgroupfs: no process, boost 0. */
        procs = path_join(d, "cgroup.procs");
        boost = path_join(d, SCHEDTUNE(b)->boost_file);
        if (!procs || !boost)
                return -ENOMEM;
        r = write_string_atomic(procs, "");
        if (r >= 0)
                r = write_string_atomic(boost, "0\n");
        return r < 0 ? r : 1;
}

/* Like rmdir() on cgroupfs: refused while a process is in the group;
 * the files the kernel made go with it. */
static int files_remove_group(const Backend *b, const char *group) {
        _cleanup_(freep) char *d = group_file(b, group, NULL), *procs = group_file(b, group, "cgroup.procs");
        _cleanup_(freep) pid_t *pids = NULL;
        _cleanup_(closedirp) DIR *dir = NULL;
        struct dirent *de;
        size_t n = 0;
        int r;

        if (!d || !procs)
                return -ENOMEM;
        r = read_pid_list(procs, &pids, &n);
        if (r < 0 && r != -ENOENT)
                return r;
        if (n > 0)
                return -EBUSY;
        dir = opendir(d);
        if (!dir)
                return -errno;
        while ((de = readdir(dir)))
                if (de->d_type == DT_REG)
                        (void) unlinkat(dirfd(dir), de->d_name, 0);
        return rmdir(d) < 0 ? -errno : 0;
}

static int files_read_value(const Backend *b, const char *group, const char *file,
                            unsigned max, unsigned *ret) {
        _cleanup_(freep) char *p = group_file(b, group, file), *s = NULL;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_one_line(p, &s);
        if (r < 0)
                return r;
        return parse_uint(strstrip(s), max, ret);
}

static int files_write_value(const Backend *b, const char *group, const char *file,
                             unsigned value) {
        _cleanup_(freep) char *p = group_file(b, group, file);
        char buf[16];

        if (!p)
                return -ENOMEM;
        snprintf(buf, sizeof(buf), "%u\n", value);
        return write_string(p, buf);
}

/* Takes pid out of one group's file, if it is there. The new list replaces
 * the file by rename: rewriting it in place races a test's reader against
 * the truncation, which can hand the reader zeroed bytes. */
static int files_remove_pid(const char *path, pid_t pid) {
        _cleanup_(freep) pid_t *pids = NULL;
        _cleanup_(freep) char *buf = NULL;
        size_t n = 0, len = 0;
        bool found = false;
        FILE *f;
        int r;

        r = read_pid_list(path, &pids, &n);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (pids[i] == pid)
                        found = true;
                else
                        fprintf(f, "%d\n", (int) pids[i]);
        }
        if (fclose(f) != 0)
                return -ENOMEM;
        return found ? write_string_atomic(path, buf) : 0;
}

/* 1 if id is listed in the group's file ("root": the top's), 0 if not,
 * -ENOENT without the file. */
static int files_lists_id(const Backend *b, const char *group, const char *file, pid_t id) {
        _cleanup_(freep) char *p = group_file(b, group, file);
        _cleanup_(freep) pid_t *ids = NULL;
        size_t n = 0;
        int r;

        if (!p)
                return -ENOMEM;
        r = read_pid_list(p, &ids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                if (ids[i] == id)
                        return 1;
        return 0;
}

static int files_has_pid(const Backend *b, const char *group, pid_t pid) {
        return files_lists_id(b, group, "cgroup.procs", pid);
}

/* Appends id to a file in one write: a reader never sees a partial file. */
static int files_append_id(const char *path, pid_t id) {
        _cleanup_(closep) int fd = -1;
        char buf[32];

        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
        if (fd < 0)
                return -errno;
        snprintf(buf, sizeof(buf), "%d\n", (int) id);
        if (write(fd, buf, strlen(buf)) != (ssize_t) strlen(buf))
                return errno > 0 ? -errno : -EIO;
        return 0;
}

/* Takes id out of every group's file (the top's too). The tree models
 * threads moved one by one in "tasks" files, which only list those. */
static int files_remove_everywhere(const Backend *b, const char *file, pid_t id) {
        const char *path = SCHEDTUNE(b)->path;
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *top = path_join(path, file);
        struct dirent *de;
        int r;

        if (!top)
                return -ENOMEM;
        r = files_remove_pid(top, id);
        if (r < 0)
                return r;
        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                _cleanup_(freep) char *other = NULL;

                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                if (asprintf(&other, "%s/%s/%s", path, de->d_name, file) < 0)
                        return -ENOMEM;
                r = files_remove_pid(other, id);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* As on cgroupfs, a write to cgroup.procs moves every thread of the
 * process: those moved alone before leave their "tasks" files. */
static int files_forget_threads(const Backend *b, pid_t pid) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *p = NULL;
        struct dirent *de;
        int r;

        if (asprintf(&p, "%s/%d/task", b->proc_root, (int) pid) < 0)
                return -ENOMEM;
        d = opendir(p);
        if (!d)
                return files_remove_everywhere(b, "tasks", pid);
        while ((de = readdir(d))) {
                unsigned tid;

                if (parse_uint(de->d_name, INT32_MAX, &tid) < 0)
                        continue;
                r = files_remove_everywhere(b, "tasks", (pid_t) tid);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int files_attach_thread(const Backend *b, const char *group, pid_t tid) {
        _cleanup_(freep) char *p = group_file(b, group, "tasks"), *d = group_file(b, group, NULL);
        struct stat st;
        int r;

        if (!p || !d)
                return -ENOMEM;
        if (kill(tid, 0) < 0 && errno == ESRCH)
                return -ESRCH;
        if (stat(d, &st) < 0)
                return -errno;  /* no such group */
        r = files_remove_everywhere(b, "tasks", tid);
        if (r < 0)
                return r;
        return files_append_id(p, tid);
}

/* Like cgroupfs, where a process is in exactly one group of a hierarchy:
 * the PID leaves the file of the group it was in and is added to the
 * target's. */
static int files_attach(const Backend *b, const char *group, pid_t pid) {
        _cleanup_(freep) char *p = group_file(b, group, "cgroup.procs");
        int r;

        if (!p)
                return -ENOMEM;
        if (kill(pid, 0) < 0 && errno == ESRCH)
                return -ESRCH;          /* what the kernel says */
        r = files_forget_threads(b, pid);
        if (r < 0)
                return r;
        r = files_has_pid(b, group, pid);
        if (r != 0)
                return MIN(r, 0);
        r = files_remove_everywhere(b, "cgroup.procs", pid);
        if (r < 0)
                return r;
        return files_append_id(p, pid);
}

/* A missing "tasks" file lists no thread. */
static int files_lists(const Backend *b, const char *group, const char *file, pid_t id) {
        int r = files_lists_id(b, group, file, id);

        return r == -ENOENT ? 0 : r;
}

static int files_copy_name(const char *name, char *buf, size_t size) {
        if (strlen(name) >= size)
                return -ENAMETOOLONG;
        strcpy(buf, name);
        return 0;
}

static int files_group_of(const Backend *b, pid_t pid, char *buf, size_t size) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;

        /* a thread moved alone is where its "tasks" line says */
        if (files_lists(b, "root", "tasks", pid) > 0)
                return files_copy_name("root", buf, size);
        d = opendir(SCHEDTUNE(b)->path);
        if (!d)
                return -errno;
        while ((de = readdir(d)))
                if (de->d_type == DT_DIR && de->d_name[0] != '.' &&
                    files_lists(b, de->d_name, "tasks", pid) > 0)
                        return files_copy_name(de->d_name, buf, size);
        rewinddir(d);
        while ((de = readdir(d))) {
                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                if (files_has_pid(b, de->d_name, pid) > 0) {
                        if (strlen(de->d_name) >= size)
                                return -ENAMETOOLONG;
                        strcpy(buf, de->d_name);
                        return 0;
                }
        }
        /* A process nobody moved is in the top group, as on cgroupfs. */
        if (kill(pid, 0) < 0 && errno == ESRCH)
                return -ESRCH;
        if (size < sizeof("root"))
                return -ENAMETOOLONG;
        strcpy(buf, "root");
        return 0;
}

const CgroupOps cgroup_ops_files = {
        .name = "files",
        .make_group = files_make_group,
        .remove_group = files_remove_group,
        .read_value = files_read_value,
        .write_value = files_write_value,
        .attach = files_attach,
        .attach_thread = files_attach_thread,
        .has_pid = files_has_pid,
        .group_of = files_group_of,
};
