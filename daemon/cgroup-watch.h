/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Auto mode: systemd units and scopes as they appear in the cgroup v2
 * tree, their processes placed by the rules. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "macro.h"

typedef struct Manager Manager;
typedef struct CgroupWatch CgroupWatch;

/* Watches <root>/sys/fs/cgroup (its "unified" child on a hybrid system)
 * and every directory below it with inotify, and places the processes of
 * every existing unit (in auto mode). A missing tree is waited for. */
int cgroup_watch_new(Manager *m, CgroupWatch **ret);
CgroupWatch *cgroup_watch_free(CgroupWatch *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(CgroupWatch *, cgroup_watch_free);

/* Reads every unit again and places all its processes (back in auto
 * mode, a new configuration), after acting on what the app scopes' xattr
 * did while it was not followed (in manual mode). */
void cgroup_watch_rescan(CgroupWatch *w);

/* The cgroup path ("/system.slice/foo.service") where pid was last seen
 * in the tree, NULL if it was not. */
const char *cgroup_watch_cgroup_of(const CgroupWatch *w, pid_t pid);
/* A process exited. */
void cgroup_watch_forget(CgroupWatch *w, pid_t pid);

/* The processes of the unit at cgroup path unit, with the cgroup each is
 * in (the unit or a directory below it that is not a unit or slice
 * itself). */
typedef struct CgroupPid {
        pid_t pid;
        char *cgroup;
} CgroupPid;

int cgroup_watch_unit_pids(const CgroupWatch *w, const char *unit, CgroupPid **ret, size_t *ret_n);
void cgroup_pids_free(CgroupPid *p, size_t n);

/* For tests: the directories watched, and whether the tree is there. */
size_t cgroup_watch_n_dirs(const CgroupWatch *w);
bool cgroup_watch_attached(const CgroupWatch *w);
