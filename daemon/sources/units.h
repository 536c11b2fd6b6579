/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit discovery: systemd units and scopes as they appear in the cgroup
 * v2 tree, their processes reported to be placed, the focus of app
 * scopes. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "events.h"
#include "macro.h"

typedef struct Units Units;

/* Watches <root>/sys/fs/cgroup (its "unified" child on a hybrid system)
 * and every directory below it with inotify, and reports the processes of
 * every existing unit to ctx's sink while following (auto mode). A
 * missing tree is waited for. */
int units_new(const SourceContext *ctx, bool following, Units **ret);
Units *units_free(Units *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(Units *, units_free);

/* Reads every unit again and places all its processes (back in auto
 * mode, a new configuration), after acting on what the app scopes' xattr
 * did while it was not followed (in manual mode). */
void units_rescan(Units *w);
/* Auto mode starts or ends; units_rescan() reads what was missed. */
void units_set_following(Units *w, bool following);

/* The cgroup path ("/system.slice/foo.service") where pid was last seen
 * in the tree, NULL if it was not. */
const char *units_cgroup_of(const Units *w, pid_t pid);
/* A process exited. */
void units_forget(Units *w, pid_t pid);

/* The processes of the unit at cgroup path unit, with the cgroup each is
 * in (the unit or a directory below it that is not a unit or slice
 * itself). */
typedef struct UnitPid {
        pid_t pid;
        char *cgroup;
} UnitPid;

int units_unit_pids(const Units *w, const char *unit, UnitPid **ret, size_t *ret_n);
void unit_pids_free(UnitPid *p, size_t n);

/* For tests: the directories watched, and whether the tree is there. */
size_t units_n_dirs(const Units *w);
bool units_attached(const Units *w);
