/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What boostd found and wrote, and the state set through the API, kept
 * under /run/boostd/ so that a restart (after a crash, too) can adopt the
 * hierarchy and later put things back. Does not log. */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "process.h"

typedef struct JournalGroup {
        char name[CLASS_NAME_MAX];
        unsigned found;         /* boost before boostd's first change */
        unsigned wrote;         /* last value boostd wrote */
        bool has_wrote;
        bool created;           /* boostd made the group */
} JournalGroup;

typedef struct JournalPid {
        ProcessId id;
        char group[CLASS_NAME_MAX];
} JournalPid;

typedef struct JournalOverride {
        char group[CLASS_NAME_MAX];
        unsigned boost;
} JournalOverride;

typedef struct Journal {
        char *dir;

        /* "journal": kernel state, dropped after a clean restore */
        JournalGroup groups[GROUPS_MAX];
        size_t n_groups;
        JournalPid *placed;             /* PIDs boostd moved out of root */
        size_t n_placed;
        bool dirty;                     /* placed changed since the last save
                                         * (backends leave the save to the
                                         * manager: it batches them) */

        /* "state": what the API set; survives restarts, not reboots */
        bool manual;
        JournalOverride overrides[GROUPS_MAX];
        size_t n_overrides;
        JournalPid *classified;         /* Classify() requests */
        size_t n_classified;
        ProcessId foreground;
} Journal;

#define JOURNAL_PLACED_MAX 65536U

Journal *journal_new(const char *dir);
Journal *journal_free(Journal *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(Journal *, journal_free);

/* Returns 1 if a kernel journal from an earlier run was found, 0 if not. */
int journal_load(Journal *j);
int journal_save(Journal *j);          /* both files */
void journal_clear_kernel(Journal *j);  /* forget groups and placed PIDs */

JournalGroup *journal_get_group(Journal *j, const char *name, bool create);

int journal_pid_set(JournalPid **list, size_t *n, const ProcessId *id, const char *group);
void journal_pid_remove(JournalPid **list, size_t *n, pid_t pid);
JournalPid *journal_pid_find(JournalPid *list, size_t n, pid_t pid);
/* Drops the entries of processes that are gone (or whose PID was
 * reused); returns how many. */
size_t journal_pid_prune(JournalPid **list, size_t *n, const char *proc_root);

int journal_set_override(Journal *j, const char *group, unsigned boost);
const JournalOverride *journal_get_override(const Journal *j, const char *group);
