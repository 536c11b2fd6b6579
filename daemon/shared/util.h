/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small file and string utilities; they do not log. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Joins a root prefix and an absolute path: ("/tmp/x", "/dev/stune") ->
 * "/tmp/x/dev/stune"; a root of NULL or "/" leaves the path as is. */
char *path_join_root(const char *root, const char *path);
char *path_join(const char *a, const char *b);
/* Whether root is the machine's own "/" and not a test's tree: the one
 * test seam, where sd-device, the process connector and libcgroup give
 * way to files, inotify and a socket (events.h, schedtune-io.h). */
bool root_is_host(const char *root);
/* Whether the l bytes at s end with suffix. */
bool strn_has_suffix(const char *s, size_t l, const char *suffix);
/* 0 if path is an empty directory with nothing mounted on it; -ENOTEMPTY,
 * -EBUSY (a mount point) or the error of reading it. */
int dir_is_empty_unmounted(const char *path);

int read_one_line(const char *path, char **ret);
int write_string(const char *path, const char *s);
int write_string_atomic(const char *path, const char *s);
/* The PIDs of a cgroup.procs file, one per line; *ret may be NULL when
 * there are none. */
int read_pid_list(const char *path, pid_t **ret, size_t *ret_n);
int mkdir_p(const char *path, mode_t mode);

int parse_uint(const char *s, unsigned max, unsigned *ret);
int parse_u64(const char *s, uint64_t *ret);
int parse_bool(const char *s);

bool class_name_is_valid(const char *s);
/* Whether s has no control character (a newline in a logged string would
 * start a forged log line). */
bool string_is_printable(const char *s);
char *strstrip(char *s);
