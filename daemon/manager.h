/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager: owns the event loop, the bus, the configuration, the
 * backend, the groups and the holds. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "config.h"
#include "holds.h"
#include "journal.h"
#include "log.h"
#include "policy.h"

typedef enum Mode {
        MODE_AUTO,
        MODE_MANUAL,
} Mode;

typedef struct Group {
        char name[CLASS_NAME_MAX];
        GroupPolicy policy;
        unsigned effective;     /* last value handed to the backend */
        bool applied;
} Group;

typedef struct PendingAuth PendingAuth;
typedef struct PowerSource PowerSource;
typedef struct InputSource InputSource;
typedef struct CgroupWatch CgroupWatch;
typedef struct ExecSource ExecSource;
typedef struct GameModeWatch GameModeWatch;

typedef struct ManagerOptions {
        const char *root;               /* NULL = "/" */
        const char *config_file;        /* NULL = <root>/etc/boostd.conf */
        const char *proc_root;          /* NULL = "/proc" */
        const char *backend;            /* overrides Backend= when set */
        const char *exec_source;        /* a test's exec events instead of the
                                         * process connector (BOOSTD_EXEC_SOURCE) */
        int log_level;                  /* until LogLevel= is read; 0 = LOG_INFO */
} ManagerOptions;

typedef struct Manager {
        LogContext log;
        sd_event *event;
        sd_bus *bus;

        char *root;
        char *proc_root;
        char *config_file;
        bool config_file_optional;
        char *dropin_dir;
        char *backend_override;
        char *exec_source_path;

        Config *config;
        Journal *journal;
        Backend *backend;

        Group groups[GROUPS_MAX];       /* parallel to config->classes */
        size_t n_groups;

        Holds holds;
        sd_event_source *hold_timer;

        PowerState power_state;
        Mode mode;
        ProcessId foreground;
        char *foreground_unit;          /* cgroup path of the foreground app's
                                         * unit; NULL: only the process */
        ProcessId *games;               /* registered with GameMode */
        size_t n_games;

        PendingAuth *pending;           /* polkit checks in flight */
        PowerSource *power;             /* auto mode: power supplies */
        InputSource *input;             /* auto mode: input activity */
        CgroupWatch *cgroups;           /* auto mode: units as they appear */
        ExecSource *exec;               /* auto mode: exec and exit events */
        GameModeWatch *gamemode;        /* GameMode's games */
        sd_event_source *save_later;    /* a journal save after the events
                                         * pending now */
        uint64_t save_pending_since;    /* CLOCK_MONOTONIC µs; 0: none */
        pid_t *lingering;               /* leader exited, other threads live */
        size_t n_lingering;
        sd_event_source *linger_timer;  /* looks at them again */
        bool started;
} Manager;

int manager_new(const ManagerOptions *o, Manager **ret, char **ret_config_error);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Selects and starts the backend, adopts what an earlier run left,
 * restores the API state and applies every group. */
int manager_start(Manager *m);
/* Puts back what was found; keeps the API state for the next start. */
int manager_stop(Manager *m);

int manager_find_group(const Manager *m, const char *name);
int manager_apply_all(Manager *m);
unsigned manager_group_base(const Manager *m, size_t i);

/* The API. Each returns negative errno and, when error is not NULL, sets a
 * named D-Bus error; the previous state stays in force on error. */
int manager_set_boost(Manager *m, const char *group, unsigned boost, sd_bus_error *error);
int manager_get_boost(Manager *m, const char *group, unsigned *ret_base,
                      unsigned *ret_effective, sd_bus_error *error);
int manager_classify(Manager *m, pid_t pid, const char *group, sd_bus_error *error);
int manager_set_foreground(Manager *m, pid_t pid, sd_bus_error *error);
int manager_hold(Manager *m, const char *group, unsigned boost, uint32_t timeout_ms,
                 const char *reason, const char *owner, uid_t uid, uint32_t *ret_cookie,
                 sd_bus_error *error);
int manager_release(Manager *m, uint32_t cookie, const char *owner, sd_bus_error *error);
int manager_reload(Manager *m, sd_bus_error *error);
int manager_set_mode(Manager *m, const char *mode, sd_bus_error *error);
int manager_set_power_state(Manager *m, PowerState state);
/* Hooks for event sources (auto mode): the input boost of a group, and
 * placing a process where everything that has a say puts it (see
 * classify.h): cgroup is where the caller found it (NULL: look it up).
 * Does nothing in manual mode, to an explicitly classified process, or
 * to one moved elsewhere by hand since boostd placed it. */
int manager_set_input_boost(Manager *m, const char *group, unsigned boost);
int manager_place_by_rules(Manager *m, pid_t pid, const char *cgroup);
/* The leader of a thread group exited: forget what is kept about the
 * process once it is gone (no other thread lives). */
void manager_forget_process(Manager *m, pid_t pid);
/* GameMode: a registered game goes to performance until it unregisters
 * (Classify() and Pin= still outrank it); clear drops every game (the
 * GameMode service went away). */
int manager_game_register(Manager *m, pid_t pid);
int manager_game_unregister(Manager *m, pid_t pid);
void manager_games_clear(Manager *m);
bool manager_is_game(Manager *m, pid_t pid);
/* The foreground app is the unit at the cgroup path unit (from a source
 * that follows the focus by unit); NULL ends it. */
int manager_set_foreground_unit(Manager *m, const char *unit);
/* Drops the holds tracked by userdata (their client left the bus). */
void manager_drop_holds_of(Manager *m, void *userdata);

const char *mode_to_string(Mode m);

/* Argument checks, shared with the bus layer. */
int manager_check_group(const Manager *m, const char *group, sd_bus_error *error);
/* ... and the boost first: InvalidBoost before UnknownGroup */
int manager_check_group_boost(const Manager *m, const char *group, unsigned boost, sd_bus_error *error);

/* manager-bus.c */
int manager_connect_bus(Manager *m);
void manager_emit_changed(Manager *m, const char *property);
int manager_track_hold(Manager *m, Hold *h);
void manager_untrack_hold(Manager *m, void *userdata);
void manager_bus_done(Manager *m);
