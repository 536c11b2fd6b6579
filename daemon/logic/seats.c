/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "seats.h"
#include "util.h"

char *seats_dir(const char *root) {
        char *d;

        if (asprintf(&d, "%s/run/systemd/seats", root_is_host(root) ? "" : root) < 0)
                return NULL;
        return d;
}

bool seat_name_is_valid(const char *s) {
        size_t l = strlen(s);

        if (l == 0 || l >= SEAT_NAME_MAX || strncmp(s, "seat", 4) != 0)
                return false;
        return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == l;
}

/* The ACTIVE_UID= of the seat file name in d; -ENOENT without one. */
static int seat_active_uid_at(int dfd, const char *name, uid_t *ret) {
        _cleanup_(fclosep) FILE *f = NULL;
        char line[256];
        int fd;

        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        f = fdopen(fd, "re");
        if (!f) {
                close(fd);
                return -errno;
        }
        while (fgets(line, sizeof(line), f)) {
                unsigned long v;
                char end;

                if (sscanf(line, "ACTIVE_UID=%lu%c", &v, &end) == 2 && end == '\n' && v < (uid_t) -1) {
                        *ret = (uid_t) v;
                        return 0;
                }
        }
        return -ENOENT;
}

int seat_active_uid(const char *dir, const char *seat, uid_t *ret) {
        _cleanup_(closep) int dfd = -1;
        int r;

        if (!seat_name_is_valid(seat))
                return -ENOENT;
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return -ENOENT;
        /* a file that cannot be read names no user either */
        r = seat_active_uid_at(dfd, seat, ret);
        return r < 0 ? -ENOENT : 0;
}

int seat_of_uid(const char *dir, uid_t uid, char seat[static SEAT_NAME_MAX]) {
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        bool found = false;

        d = opendir(dir);
        if (!d)
                return -ENOENT;
        while ((de = readdir(d))) {
                uid_t active;

                if (!seat_name_is_valid(de->d_name))
                        continue;
                if (seat_active_uid_at(dirfd(d), de->d_name, &active) < 0 || active != uid)
                        continue;
                /* readdir's order is the file system's: take the least
                 * name, so that the answer does not depend on it */
                if (!found || strcmp(de->d_name, seat) < 0)
                        strcpy(seat, de->d_name);
                found = true;
        }
        return found ? 0 : -ENOENT;
}
