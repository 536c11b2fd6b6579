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

typedef struct ManagerOptions {
        const char *root;               /* NULL = "/" */
        const char *config_file;        /* NULL = <root>/etc/boostd.conf */
        const char *proc_root;          /* NULL = "/proc" */
        const char *backend;            /* overrides Backend= when set */
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

        PendingAuth *pending;           /* polkit checks in flight */
        PowerSource *power;             /* auto mode: power supplies */
        InputSource *input;             /* auto mode: input activity */
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
 * placing a process where the rules say (an explicit Classify() and the
 * foreground process keep their place). */
int manager_set_input_boost(Manager *m, const char *group, unsigned boost);
int manager_place_by_rules(Manager *m, pid_t pid);
/* Drops the holds tracked by userdata (their client left the bus). */
void manager_drop_holds_of(Manager *m, void *userdata);

const char *mode_to_string(Mode m);

/* Argument checks, shared with the bus layer. */
int manager_check_boost(unsigned boost, sd_bus_error *error);
int manager_check_group(const Manager *m, const char *group, sd_bus_error *error);

/* manager-bus.c */
int manager_connect_bus(Manager *m);
void manager_emit_changed(Manager *m, const char *property);
int manager_track_hold(Manager *m, Hold *h);
void manager_untrack_hold(Manager *m, void *userdata);
void manager_bus_done(Manager *m);
