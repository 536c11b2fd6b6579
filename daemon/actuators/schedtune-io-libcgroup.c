/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroup work through libcgroup, on the host (see schedtune-io.h).
 * libcgroup finds the hierarchy of Schedtune.controller in the mount
 * table read by cgroup_init(), makes groups, writes values and moves
 * processes; its ECG* codes are turned into negative errno here. */
#include <libcgroup.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "schedtune-internal.h"
#include "schedtune-io.h"
#include "log.h"
#include "util.h"

int cgroup_errno_from_ecg(int ecg) {
        int e;

        switch (ecg) {
        case 0:
                return 0;
        case ECGOTHER:          /* the system's errno is kept aside */
                e = cgroup_get_last_errno();
                return e > 0 ? -e : -EIO;
        case ECGROUPNOTEXIST:
        case ECGROUPVALUENOTEXIST:
                return -ENOENT;
        case ECGROUPNOTMOUNTED:
        case ECGROUPSUBSYSNOTMOUNTED:
                return -ENODEV;
        case ECGROUPNOTOWNER:
        case ECGROUPNOTALLOWED:
                return -EPERM;
        case ECGROUPNOTCOMPILED:
        case ECGROUPUNSUPP:
                return -EOPNOTSUPP;
        case ECGROUPNOTINITIALIZED:
                return -ENXIO;
        case ECGINVAL:
        case ECGROUPMULTIMOUNTED:
                return -EINVAL;
        case ECGCONTROLLEREXISTS:
        case ECGVALUEEXISTS:
                return -EEXIST;
        case ECGMAXVALUESEXCEEDED:
                return -E2BIG;
        case ECGEOF:
                return -ENODATA;
        case ECGNONEMPTY:
                return -EBUSY;
        default:
                return -EIO;
        }
}

/* libcgroup's own words go to the debug log; the caller gets errno. */
static int libcg_error(const Backend *b, int ecg, const char *what, const char *group) {
        int r = cgroup_errno_from_ecg(ecg);

        log_debug(b->log, "libcgroup: %s %s: %s (%d).", what, group, cgroup_strerror(ecg), ecg);
        return r;
}

static void libcg_freep(struct cgroup **cg) {
        if (*cg)
                cgroup_free(cg);
}

static const char *libcg_name(const char *group) {
        return streq(group, "root") ? "/" : group;
}

/* A cgroup object for group with the backend's controller. */
static int libcg_new(const Backend *b, const char *group, struct cgroup **ret,
                     struct cgroup_controller **ret_ctrl) {
        struct cgroup *cg = cgroup_new_cgroup(libcg_name(group));
        struct cgroup_controller *c;

        if (!cg)
                return -ENOMEM;
        c = cgroup_add_controller(cg, SCHEDTUNE(b)->controller);
        if (!c) {
                cgroup_free(&cg);
                return -ENOMEM;
        }
        *ret = cg;
        *ret_ctrl = c;
        return 0;
}

static int libcg_init(Backend *b) {
        const char *controller = SCHEDTUNE(b)->controller;
        _cleanup_(freep) char *mp = NULL;
        int ecg;

        /* Reads /proc/mounts now, so it runs after the hierarchy is
         * mounted. */
        ecg = cgroup_init();
        if (ecg != 0)
                return libcg_error(b, ecg, "init", controller);
        ecg = cgroup_get_subsys_mount_point(controller, &mp);
        if (ecg != 0)
                return ecg == ECGROUPNOTEXIST ? -ENODEV : libcg_error(b, ecg, "find", controller);
        log_debug(b->log, "libcgroup: %s is mounted at %s.", controller, mp);
        return 0;
}

static int libcg_read_value(const Backend *b, const char *group, const char *file,
                            unsigned max, unsigned *ret) {
        _cleanup_(freep) char *path = NULL, *name = strdup(file);
        char buf[64] = "";
        void *h = NULL;
        int ecg;

        if (!name || asprintf(&path, "/%s", streq(group, "root") ? "" : group) < 0)
                return -ENOMEM;
        ecg = cgroup_read_value_begin(SCHEDTUNE(b)->controller, path, name, &h, buf, sizeof(buf));
        if (h)
                (void) cgroup_read_value_end(&h);
        if (ecg != 0)
                return libcg_error(b, ecg, "read", group);
        return parse_uint(strstrip(buf), max, ret);
}

/* One value written into one of group's files; what names the write in
 * an error. */
static int libcg_set(const Backend *b, const char *group, const char *file, uint64_t value,
                     const char *what) {
        _cleanup_(libcg_freep) struct cgroup *cg = NULL;
        struct cgroup_controller *c;
        int ecg, r;

        r = libcg_new(b, group, &cg, &c);
        if (r < 0)
                return r;
        ecg = cgroup_add_value_uint64(c, file, value);
        if (ecg == 0)
                ecg = cgroup_modify_cgroup(cg);
        return ecg == 0 ? 0 : libcg_error(b, ecg, what, group);
}

static int libcg_write_value(const Backend *b, const char *group, const char *file,
                             unsigned value) {
        return libcg_set(b, group, file, value, "write");
}

static int libcg_make_group(const Backend *b, const char *group) {
        _cleanup_(libcg_freep) struct cgroup *cg = NULL;
        _cleanup_(freep) char *dir = NULL;
        struct cgroup_controller *c;
        unsigned v;
        int ecg, r;

        r = libcg_read_value(b, group, SCHEDTUNE(b)->boost_file, UINT_MAX, &v);
        if (r >= 0)
                return 0;       /* there already */
        if (r != -ENOENT)
                return r;

        r = libcg_new(b, group, &cg, &c);
        if (r < 0)
                return r;
        ecg = cgroup_create_cgroup(cg, /* ignore_ownership= */ 1);
        dir = path_join(SCHEDTUNE(b)->path, group);
        if (!dir)
                return -ENOMEM;
        /* mkdir() honours the unit's UMask=0077; the groups stay readable
         * for everyone, as the kernel's own are */
        if (ecg == 0) {
                (void) chmod(dir, 0755);
                return 1;
        }
        if (ecg != ECGROUPNOTALLOWED)
                return libcg_error(b, ecg, "create", group);
        /* libcgroup reports every mkdir() failure but EPERM as
         * ECGROUPNOTALLOWED and drops errno, while the kernel's reason is
         * what the user needs: ENOSPC (the group limit) or EINVAL (a
         * hierarchy that is not flat). Asking again recovers it. */
        if (mkdir(dir, 0755) == 0) {
                (void) chmod(dir, 0755);
                return 1;
        }
        return errno == EEXIST ? 0 : -errno;
}

/* Not cgroup_delete_cgroup(): it moves the group's processes to the
 * parent, and a group boostd removes must keep those it did not place. */
static int libcg_remove_group(const Backend *b, const char *group) {
        _cleanup_(freep) char *dir = path_join(SCHEDTUNE(b)->path, group);

        if (!dir)
                return -ENOMEM;
        return rmdir(dir) < 0 ? -errno : 0;
}

/* Not cgroup_attach_task_pid(): on cgroup v1 it writes one thread ID to
 * "tasks", and cgroup_change_cgroup_path() walks /proc/PID/task, which
 * misses threads created meanwhile. A PID written to cgroup.procs moves
 * the whole thread group at once, so libcgroup writes it there. */
static int libcg_attach(const Backend *b, const char *group, pid_t pid) {
        return libcg_set(b, group, "cgroup.procs", (uint64_t) pid, "move into");
}

/* One thread alone: the write to "tasks" that libcg_attach() avoids. */
static int libcg_attach_thread(const Backend *b, const char *group, pid_t tid) {
        return libcg_set(b, group, "tasks", (uint64_t) tid, "move a thread into");
}

static int libcg_has_pid(const Backend *b, const char *group, pid_t pid) {
        _cleanup_(freep) pid_t *pids = NULL;
        _cleanup_(freep) char *name = strdup(libcg_name(group));
        _cleanup_(freep) char *ctrl = strdup(SCHEDTUNE(b)->controller);
        int n = 0, ecg;

        if (!name || !ctrl)
                return -ENOMEM;
        ecg = cgroup_get_procs(name, ctrl, &pids, &n);
        if (ecg != 0)
                return libcg_error(b, ecg, "list", group);
        for (int i = 0; i < n; i++)
                if (pids[i] == pid)
                        return 1;
        return 0;
}

/* Where the kernel says the process is (its line in /proc/PID/cgroup). */
static int libcg_group_of(const Backend *b, pid_t pid, char *buf, size_t size) {
        _cleanup_(freep) char *path = NULL;
        const char *name;
        int ecg;

        ecg = cgroup_get_current_controller_path(pid, SCHEDTUNE(b)->controller, &path);
        if (ecg != 0)
                return ecg == ECGOTHER && cgroup_get_last_errno() == ENOENT ? -ESRCH :
                       libcg_error(b, ecg, "look up the group of", "a process");
        name = path && path[0] == '/' ? path + 1 : path ?: "";
        if (name[0] == '\0')
                name = "root";
        if (strlen(name) >= size)
                return -ENAMETOOLONG;
        strcpy(buf, name);
        return 0;
}

const CgroupOps cgroup_ops_libcgroup = {
        .name = "libcgroup",
        .init = libcg_init,
        .make_group = libcg_make_group,
        .remove_group = libcg_remove_group,
        .read_value = libcg_read_value,
        .write_value = libcg_write_value,
        .attach = libcg_attach,
        .attach_thread = libcg_attach_thread,
        .has_pid = libcg_has_pid,
        .group_of = libcg_group_of,
};
