/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small file and string utilities; they do not log. */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "util.h"

char *path_join_root(const char *root, const char *path) {
        char *p;

        if (!root || streq(root, "/") || root[0] == '\0')
                return strdup(path);
        while (*path == '/')
                path++;
        if (asprintf(&p, "%s/%s", root, path) < 0)
                return NULL;
        return p;
}

bool root_is_host(const char *root) {
        return !root || strcmp(root, "/") == 0;
}

char *path_join(const char *a, const char *b) {
        char *p;
        size_t l = strlen(a);

        while (*b == '/')
                b++;
        if (asprintf(&p, "%s%s%s", a, l > 0 && a[l - 1] == '/' ? "" : "/", b) < 0)
                return NULL;
        return p;
}

int read_one_line(const char *path, char **ret) {
        _cleanup_(fclosep) FILE *f = NULL;
        char *line = NULL;
        size_t n = 0;
        ssize_t l;

        f = fopen(path, "re");
        if (!f)
                return -errno;
        errno = 0;
        l = getline(&line, &n, f);
        if (l < 0) {
                free(line);
                if (errno != 0)
                        return -errno;
                line = strdup("");
                if (!line)
                        return -ENOMEM;
                *ret = line;
                return 0;
        }
        while (l > 0 && (line[l - 1] == '\n' || line[l - 1] == '\r'))
                line[--l] = '\0';
        *ret = line;
        return 0;
}

int write_string(const char *path, const char *s) {
        _cleanup_(closep) int fd = -1;
        size_t l = strlen(s);
        ssize_t n;

        /* No O_TRUNC and no O_CREAT: this writes kernel attribute files,
         * which must already exist. */
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        n = write(fd, s, l);
        if (n < 0)
                return -errno;
        if ((size_t) n != l)
                return -EIO;
        /* A short regular file (test trees) keeps no stale tail. */
        (void) ftruncate(fd, (off_t) l);
        return 0;
}

int write_string_atomic(const char *path, const char *s) {
        _cleanup_(freep) char *tmp = NULL;
        _cleanup_(closep) int fd = -1;
        size_t l = strlen(s);

        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        if (write(fd, s, l) != (ssize_t) l) {
                int r = errno ? -errno : -EIO;
                (void) unlink(tmp);
                return r;
        }
        if (rename(tmp, path) < 0) {
                int r = -errno;
                (void) unlink(tmp);
                return r;
        }
        return 0;
}

int read_pid_list(const char *path, pid_t **ret, size_t *ret_n) {
        _cleanup_(fclosep) FILE *f = NULL;
        _cleanup_(freep) char *line = NULL;
        _cleanup_(freep) pid_t *pids = NULL;
        size_t n = 0, size = 0, l = 0;

        f = fopen(path, "re");
        if (!f)
                return -errno;
        while (getline(&line, &l, f) > 0) {
                long v = strtol(line, NULL, 10);

                if (v <= 0 || v > INT_MAX)
                        continue;
                if (n == size) {
                        pid_t *p;

                        size = size ? size * 2 : 16;
                        p = realloc(pids, size * sizeof(pid_t));
                        if (!p)
                                return -ENOMEM;
                        pids = p;
                }
                pids[n++] = (pid_t) v;
        }
        if (ferror(f))
                return errno > 0 ? -errno : -EIO;
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

int mkdir_p(const char *path, mode_t mode) {
        _cleanup_(freep) char *p = strdup(path);

        if (!p)
                return -ENOMEM;
        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        if (mkdir(p, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

int parse_u64(const char *s, uint64_t *ret) {
        unsigned long long v;
        char *end;

        if (!s || !isdigit((unsigned char) s[0]))
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno != 0)
                return -errno;
        if (*end != '\0')
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_uint(const char *s, unsigned max, unsigned *ret) {
        uint64_t v;
        int r;

        r = parse_u64(s, &v);
        if (r < 0)
                return r;
        if (v > max)
                return -ERANGE;
        *ret = (unsigned) v;
        return 0;
}

int parse_bool(const char *s) {
        static const char *const yes[] = { "1", "yes", "true", "on" };
        static const char *const no[] = { "0", "no", "false", "off" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0)
                        return 1;
                if (strcasecmp(s, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}

bool string_is_printable(const char *s) {
        for (; s && *s; s++)
                if ((unsigned char) *s < 0x20 || *s == 0x7f)
                        return false;
        return true;
}

bool class_name_is_valid(const char *s) {
        size_t l = strlen(s);

        if (l == 0 || l > 31)
                return false;
        for (const char *c = s; *c; c++)
                if (!(islower((unsigned char) *c) || isdigit((unsigned char) *c) ||
                      *c == '_' || *c == '-'))
                        return false;
        /* Must not clash with the cgroup's own file names. */
        return !strchr(s, '.') && s[0] != '-';
}

char *strstrip(char *s) {
        char *e;

        while (isspace((unsigned char) *s))
                s++;
        e = s + strlen(s);
        while (e > s && isspace((unsigned char) e[-1]))
                *--e = '\0';
        return s;
}

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

int dir_is_empty_unmounted(const char *path) {
        _cleanup_(closedirp) DIR *d = NULL;
        _cleanup_(freep) char *parent = NULL;
        struct stat st, pst;
        struct statx sx;
        struct dirent *de;

        d = opendir(path);
        if (!d)
                return -errno;
        while ((de = readdir(d)))
                if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                        return -ENOTEMPTY;
        /* a bind mount of the same file system has its st_dev: the
         * kernel marks the root of any mount (5.8 and later) */
        if (statx(dirfd(d), "", AT_EMPTY_PATH, 0, &sx) >= 0 && (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
            (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
                return -EBUSY;
        if (asprintf(&parent, "%s/..", path) < 0)
                return -ENOMEM;
        if (fstat(dirfd(d), &st) < 0 || stat(parent, &pst) < 0)
                return -errno;
        /* another file system there, or the root itself */
        if (st.st_dev != pst.st_dev || st.st_ino == pst.st_ino)
                return -EBUSY;
        return 0;
}

bool strn_has_suffix(const char *s, size_t l, const char *suffix) {
        size_t sl = strlen(suffix);

        return l >= sl && memcmp(s + l - sl, suffix, sl) == 0;
}
