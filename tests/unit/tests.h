/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared fixtures of the unit tests: temporary trees and files. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

/* Backends in tests log only what is critical. */
static const LogContext quiet = { .max_level = LOG_CRIT };

static inline char *tmpdir_new(void) {
        char *d = strdup("/tmp/boostd-unit-XXXXXX");

        if (!d || !mkdtemp(d))
                abort();
        return d;
}

static inline int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

static inline void tmpdir_free(char *d) {
        if (!d)
                return;
        (void) nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        free(d);
}

static inline void mkdirs(const char *root, const char *rel) {
        char p[8192];

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        for (char *s = p + strlen(root) + 1; *s; s++)
                if (*s == '/') {
                        *s = '\0';
                        (void) mkdir(p, 0755);
                        *s = '/';
                }
        (void) mkdir(p, 0755);
}

_printf_(3, 4) static inline void write_file(const char *root, const char *rel, const char *fmt, ...) {
        char p[8192];
        FILE *f;
        va_list ap;

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        f = fopen(p, "w");
        assert_non_null(f);
        va_start(ap, fmt);
        vfprintf(f, fmt, ap);
        va_end(ap);
        assert_int_equal(fclose(f), 0);
}

static inline void empty_file(const char *root, const char *rel) {
        write_file(root, rel, "%s", "");
}

/* Returns the file's content, trailing newline stripped, in a static
 * buffer per call site's use (copy if needed). */
static inline const char *read_file(const char *root, const char *rel, char *buf, size_t size) {
        char p[8192];
        FILE *f;
        size_t n;

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        f = fopen(p, "r");
        if (!f)
                return NULL;
        n = fread(buf, 1, size - 1, f);
        fclose(f);
        buf[n] = '\0';
        while (n > 0 && buf[n - 1] == '\n')
                buf[--n] = '\0';
        return buf;
}

static inline int read_int(const char *root, const char *rel) {
        char buf[64];

        assert_non_null(read_file(root, rel, buf, sizeof(buf)));
        return atoi(buf);
}

/* A group's schedtune.boost in the fake hierarchy at <root>/dev/stune. */
static inline int stune_boost(const char *root, const char *group) {
        char p[256];

        if (strcmp(group, "root") == 0)
                return read_int(root, "dev/stune/schedtune.boost");
        snprintf(p, sizeof(p), "dev/stune/%s/schedtune.boost", group);
        return read_int(root, p);
}

/* Whether a cgroup.procs file of a test tree lists pid. */
static inline bool file_has_pid(const char *root, const char *rel, pid_t pid) {
        char buf[8192];

        if (!read_file(root, rel, buf, sizeof(buf)))
                return false;
        for (char *s = buf; *s;) {
                char *e;
                long v = strtol(s, &e, 10);

                if (e == s)
                        break;
                if (v == pid)
                        return true;
                s = e;
                while (*s == '\n')
                        s++;
        }
        return false;
}

/* A child that sleeps until killed, and one that has exited.
 *
 * A sleeper must never outlive the one that forked it: one left behind
 * holds the test's output pipe open and the test runner waits for it
 * until its timeout. So it asks for SIGKILL at its parent's death, then
 * checks that the parent has not died already (the request is not
 * retroactive: under valgrind the parent may be killed before the child
 * has made it), and lets go of stdout and stderr. Every helper process a
 * test forks starts with child_setup(). */
static inline void child_setup(pid_t parent) {
        int null;

        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
                _exit(0);
        null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0) {
                (void) dup2(null, STDOUT_FILENO);
                (void) dup2(null, STDERR_FILENO);
                close(null);
        }
}

static inline void sleeper_body(pid_t parent, int ready_fd) {
        pid_t self = getpid();

        child_setup(parent);
        if (ready_fd >= 0 && write(ready_fd, &self, sizeof(self)) != sizeof(self))
                _exit(1);
        for (;;)
                pause();
}

static inline pid_t spawn_sleeper(void) {
        pid_t parent = getpid(), pid = fork();

        assert_true(pid >= 0);
        if (pid == 0)
                sleeper_body(parent, -1);
        return pid;
}

/* A sleeper with a sleeping child of its own (PID in *ret_child), which
 * dies with it. The child reports itself only once it is set to die with
 * its parent. */
static inline pid_t spawn_sleeper_family(pid_t *ret_child) {
        pid_t parent = getpid(), pid;
        int fds[2];

        assert_int_equal(pipe(fds), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                pid_t self = getpid();

                close(fds[0]);
                child_setup(parent);
                if (fork() == 0)
                        sleeper_body(self, fds[1]);
                close(fds[1]);
                sleeper_body(parent, -1);
        }
        close(fds[1]);
        assert_int_equal(read(fds[0], ret_child, sizeof(*ret_child)), sizeof(*ret_child));
        close(fds[0]);
        assert_true(*ret_child > 0);
        return pid;
}

static inline void kill_sleeper(pid_t pid) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
}

static inline pid_t dead_pid(void) {
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0)
                _exit(0);
        waitpid(pid, NULL, 0);
        return pid;
}

/* A process as the daemon sees it below a fake proc root (the manager's
 * proc_root): the real process's files, linked into /proc, except its
 * cgroup v2 path, which is the one the test's fake cgroup tree gives it.
 * Called again, it moves the process. */
static inline void fake_proc_set(const char *proc_root, pid_t pid, const char *cgroup) {
        static const char *const real[] = { "stat", "status", "comm", "task" };
        char d[4352], p[8192], target[8192];
        ssize_t l;
        FILE *f;

        snprintf(d, sizeof(d), "%s/%d", proc_root, (int) pid);
        (void) mkdir(d, 0755);
        for (size_t i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
                snprintf(p, sizeof(p), "%s/%s", d, real[i]);
                snprintf(target, sizeof(target), "/proc/%d/%s", (int) pid, real[i]);
                if (symlink(target, p) < 0)
                        assert_int_equal(errno, EEXIST);
        }
        /* what the link points to, as /proc/PID/exe reads */
        snprintf(p, sizeof(p), "/proc/%d/exe", (int) pid);
        l = readlink(p, target, sizeof(target) - 1);
        if (l > 0) {
                target[l] = '\0';
                snprintf(p, sizeof(p), "%s/exe", d);
                (void) symlink(target, p);
        }
        snprintf(p, sizeof(p), "%s/cgroup", d);
        f = fopen(p, "w");
        assert_non_null(f);
        fprintf(f, "0::%s\n", cgroup);
        assert_int_equal(fclose(f), 0);
}

/* A tree like a kernel with SchedTune mounted at dev/stune. */
static inline void make_schedtune_tree(const char *root, const char *const *groups, size_t n) {
        mkdirs(root, "proc");
        write_file(root, "proc/cgroups",
                   "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t0\t1\t1\nschedtune\t3\t1\t1\n");
        mkdirs(root, "dev/stune");
        write_file(root, "dev/stune/schedtune.boost", "0\n");
        empty_file(root, "dev/stune/cgroup.procs");
        for (size_t i = 0; i < n; i++) {
                char p[512];

                snprintf(p, sizeof(p), "dev/stune/%s", groups[i]);
                mkdirs(root, p);
                snprintf(p, sizeof(p), "dev/stune/%s/schedtune.boost", groups[i]);
                write_file(root, p, "0\n");
                snprintf(p, sizeof(p), "dev/stune/%s/cgroup.procs", groups[i]);
                empty_file(root, p);
        }
}
