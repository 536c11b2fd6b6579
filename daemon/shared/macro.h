/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small local equivalents of systemd's internal macros. */
#pragma once

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

#define TAKE_PTR(p)                             \
        ({                                      \
                __typeof__(p) _p_ = (p);        \
                (p) = NULL;                     \
                _p_;                            \
        })

#define TAKE_FD(fd)                             \
        ({                                      \
                int _fd_ = (fd);                \
                (fd) = -1;                      \
                _fd_;                           \
        })

static inline void freep(void *p) {
        free(*(void **) p);
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f) {
        if (*f)
                fclose(*f);
}

static inline void closedirp(DIR **d) {
        if (*d)
                closedir(*d);
}

/* free() that returns NULL, for p->x = mfree(p->x). */
static inline void *mfree(void *p) {
        free(p);
        return NULL;
}

static inline bool streq_ptr(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return strcmp(a, b) == 0;
}

#define streq(a, b) (strcmp((a), (b)) == 0)

#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)         \
        static inline void func##p(type *p) {           \
                if (*p)                                 \
                        *p = func(*p);                  \
        }

/* Negative errno convention: returns are < 0 on failure. */
#define RET_NERRNO(expr)                                \
        ({                                              \
                int _r_ = (expr);                       \
                _r_ < 0 ? -errno : _r_;                 \
        })

#define USEC_PER_SEC  1000000ULL
#define USEC_PER_MSEC 1000ULL
