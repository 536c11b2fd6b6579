/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What boostd found and wrote, and the state set through the API, kept
 * under /run/boostd/ so that a restart (after a crash, too) can adopt the
 * hierarchy and later put things back. Logs only a failed save. */
#pragma once

#include <stdbool.h>

#include <systemd/sd-event.h>

#include "config.h"
#include "log.h"
#include "process.h"
#include "seats.h"

typedef struct StateGroup {
        char name[CLASS_NAME_MAX];
        unsigned found;         /* boost before boostd's first change */
        unsigned wrote;         /* last value boostd wrote */
        bool has_wrote;
        bool created;           /* boostd made the group */
} StateGroup;

typedef struct StatePid {
        ProcessId id;
        char group[CLASS_NAME_MAX];
        pid_t from;             /* placed: by this ancestor's decision (the
                                 * placer's, in memory only); 0: its own */
} StatePid;

typedef struct StateOverride {
        char group[CLASS_NAME_MAX];
        unsigned boost;
} StateOverride;

/* SetForeground()'s process on a seat ("": of no seat's user), and
 * whether its app's unit came along (a user's own process in a system
 * unit is foreground alone). */
typedef struct StateForeground {
        ProcessId id;
        bool with_unit;
        char seat[SEAT_NAME_MAX];
} StateForeground;

#define FOREGROUNDS_MAX 16U

/* A thread whose uclamp.min a hint session changed, and the value it had
 * before, so that a restart after a crash gives it back. */
typedef struct StateClamp {
        pid_t tid;
        uint64_t start;         /* its start time: a reused TID is not it */
        unsigned previous;
} StateClamp;

/* A cgroup v2 directory whose cpu.boost boostd changed (schedtune2): a
 * unit's own cgroup given its class's boost in place (group set), or a
 * slice above such units raised so that their boost is not capped (group
 * ""). ino tells a cgroup re-created under the same path from the one
 * written. */
typedef struct StateCgroup {
        char *path;             /* below the v2 root: "/system.slice/a.service" */
        char group[CLASS_NAME_MAX];
        uint64_t ino;
        unsigned found;         /* cpu.boost before boostd's first write */
        unsigned wrote;
        bool has_wrote;
        bool foreign;           /* someone else changed it: theirs until the
                                 * cgroup is made anew (journaled) */
        bool no_cpu;            /* no cpu.boost even after systemd was asked */
} StateCgroup;

/* A path that may be journaled: absolute, no "." or ".." component, no
 * white space or control character, at most PATH_MAX. */
bool state_cgroup_path_is_valid(const char *path);

typedef struct State {
        char *dir;

        /* "journal": kernel state, dropped after a clean restore */
        StateGroup groups[GROUPS_MAX];
        size_t n_groups;
        StatePid *placed;             /* PIDs boostd moved out of root, in
                                         * "placed": up to STATE_PLACED_MAX
                                         * lines, written only when changed */
        size_t n_placed;
        StateClamp *clamps;           /* threads hint sessions clamped */
        size_t n_clamps;
        StateCgroup *cgroups;         /* cpu.boost files written */
        size_t n_cgroups;
        bool dirty;                     /* changed since the last save */
        bool placed_dirty;              /* ... the placed list too */

        /* "state": what the API set; survives restarts, not reboots */
        bool manual;
        StateOverride overrides[GROUPS_MAX];
        size_t n_overrides;
        StatePid *classified;         /* Classify() requests */
        size_t n_classified;
        StateForeground foregrounds[FOREGROUNDS_MAX];
        size_t n_foregrounds;

        /* saving: see state_save_later() */
        sd_event *event;
        const LogContext *log;
        sd_event_source *save_later;
        uint64_t save_pending_since;    /* CLOCK_MONOTONIC µs; 0: none */
} State;

#define STATE_PLACED_MAX 65536U

/* The foreground kept for seat, NULL if none. */
StateForeground *state_foreground_find(State *j, const char *seat);

State *state_new(const char *dir);
State *state_free(State *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(State *, state_free);

/* Returns 1 if a kernel journal from an earlier run was found, 0 if not. */
int state_load(State *j);
/* Backends and the API change the state in memory and mark it dirty;
 * only this file writes it. state_save() writes both files now (and
 * makes a pending save needless); state_commit() does so and logs a
 * failure; state_save_later() batches (see state.c). Without an event
 * loop (state_set_event()) every save is immediate. */
void state_set_event(State *j, sd_event *e, const LogContext *log);
int state_save(State *j);
void state_commit(State *j);
void state_save_later(State *j);
void state_clear_kernel(State *j);  /* forget groups and placed PIDs */
/* The placed list: these mark it (and the state) changed. */
int state_placed_set(State *j, const ProcessId *id, const char *group);
void state_placed_remove(State *j, pid_t pid);
size_t state_placed_prune(State *j, const char *proc_root);
void state_remove_group(State *j, const char *name);
/* The clamps list (in "journal"); only hint sessions change it, and
 * state_clear_kernel() leaves it. */
int state_clamp_set(State *j, pid_t tid, uint64_t start, unsigned previous);
void state_clamp_remove(State *j, pid_t tid);
void state_clamps_clear(State *j);

StateGroup *state_get_group(State *j, const char *name, bool create);

/* The cgroups list (in "journal"); only unit-boost.c changes it, and
 * state_clear_kernel() leaves it. */
StateCgroup *state_cgroup_find(State *j, const char *path);
/* A new entry for path (valid: state_cgroup_path_is_valid()), or NULL. */
StateCgroup *state_cgroup_add(State *j, const char *path);
void state_cgroup_remove(State *j, StateCgroup *c);

int state_pid_set(StatePid **list, size_t *n, const ProcessId *id, const char *group);
void state_pid_remove(StatePid **list, size_t *n, pid_t pid);
StatePid *state_pid_find(StatePid *list, size_t n, pid_t pid);
/* Drops the entries of processes that are gone (or whose PID was
 * reused); returns how many. */
size_t state_pid_prune(StatePid **list, size_t *n, const char *proc_root);

int state_set_override(State *j, const char *group, unsigned boost);
void state_clear_override(State *j, const char *group);
const StateOverride *state_get_override(const State *j, const char *group);
