/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cgroup work as plain file I/O below Backend.path: the seam that lets
 * the unit and D-Bus tests run against a temporary tree (see
 * cgroup-ops.h). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "backend.h"
#include "cgroup-ops.h"
#include "util.h"

static char *group_file(const Backend *b, const char *group, const char *file) {
        _cleanup_(freep) char *d = streq(group, "root") ? strdup(b->path) : path_join(b->path, group);

        if (!d)
                return NULL;
        return file ? path_join(d, file) : TAKE_PTR(d);
}

static int files_make_group(const Backend *b, const char *group) {
        _cleanup_(freep) char *d = group_file(b, group, NULL);

        if (!d)
                return -ENOMEM;
        /* On cgroupfs the kernel fills in the group's files. */
        if (mkdir(d, 0755) < 0)
                return errno == EEXIST ? 0 : -errno;
        return 1;
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

static int files_attach(const Backend *b, const char *group, pid_t pid) {
        _cleanup_(freep) char *p = group_file(b, group, "cgroup.procs");
        char buf[32];

        if (!p)
                return -ENOMEM;
        snprintf(buf, sizeof(buf), "%d\n", (int) pid);
        return write_string(p, buf);
}

static int files_has_pid(const Backend *b, const char *group, pid_t pid) {
        _cleanup_(freep) char *p = group_file(b, group, "cgroup.procs"), *line = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        size_t n = 0;

        if (!p)
                return -ENOMEM;
        f = fopen(p, "re");
        if (!f)
                return -errno;
        while (getline(&line, &n, f) > 0)
                if (atoi(line) == pid)
                        return 1;
        return 0;
}

const CgroupOps cgroup_ops_files = {
        .name = "files",
        .make_group = files_make_group,
        .read_value = files_read_value,
        .write_value = files_write_value,
        .attach = files_attach,
        .has_pid = files_has_pid,
};
