/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Matching processes against the configured rules; pure logic. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "config.h"
#include "process.h"

/* The unit (last .service or .scope component) of a cgroup path, copied
 * into buf; returns NULL if there is none. */
const char *cgroup_path_unit(const char *cgroup, char *buf, size_t size);
/* The length of the part of a cgroup path up to and including its unit,
 * 0 if it has none: "/a.slice/b.service/sub" -> strlen("/a.slice/b.service"). */
size_t cgroup_path_unit_prefix(const char *cgroup);
/* Where the first user@UID.service component of a cgroup path ends (its
 * UID in *ret_uid), 0 if there is none: what comes before is the system
 * manager's, what comes after a user's manager's. */
size_t cgroup_path_user_manager(const char *cgroup, uid_t *ret_uid);
/* Whether cgroup is dir or below it. */
bool cgroup_path_is_in(const char *cgroup, const char *dir);

/* Returns the index of the first rule whose every given key matches, or
 * -ENOENT. */
int rules_find(const Config *c, const ProcessInfo *p);

/* The first rule that names units alone (Unit= or Slice=, no Comm=,
 * Exe= or User=, the system manager's) and matches the unit whose cgroup
 * path is unit, or -ENOENT: the class a whole unit has, for boosts in
 * place. */
int rules_find_unit(const Config *c, const char *unit);

/* The class index the rules give a process (the default class if no rule
 * matches). */
int rules_classify(const Config *c, const ProcessInfo *p);

