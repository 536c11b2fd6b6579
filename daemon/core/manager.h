/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager: owns the event loop, the configuration, the state, the
 * backend, the groups, the placer and the event sources; starts, stops
 * and reloads them, and holds the mode. Returns negative errno; the bus
 * layer (manager-bus.c) words errors for clients. */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "agents.h"
#include "backend.h"
#include "reach.h"
#include "config.h"
#include "events.h"
#include "gamemode.h"
#include "groups.h"
#include "input.h"
#include "log.h"
#include "placer.h"
#include "power.h"
#include "procmon.h"
#include "state.h"
#include "seats-watch.h"
#include "units.h"
#include "hint-sessions.h"

typedef enum Mode {
        MODE_AUTO,
        MODE_MANUAL,
        _MODE_MAX,
        _MODE_INVALID = -EINVAL,
} Mode;

const char *mode_to_string(Mode m);
Mode mode_from_string(const char *s);

typedef struct ManagerOptions {
        const char *root;               /* NULL = "/" */
        const char *config_file;        /* NULL = <root>/etc/boostd.conf */
        const char *proc_root;          /* NULL = "/proc" */
        const char *backend;            /* overrides Backend= when set */
        const char *exec_source;        /* a test's exec events instead of the
                                         * process connector (BOOSTD_EXEC_SOURCE) */
        int log_level;                  /* until LogLevel= is read; 0 = LOG_INFO */
} ManagerOptions;

typedef struct BusData BusData;

typedef struct Manager {
        LogContext log;
        sd_event *event;
        sd_bus *bus;                    /* connected by manager-bus.c */
        BusData *bus_data;              /* manager-bus.c's */

        char *root;
        char *proc_root;
        char *config_file;
        bool config_file_optional;
        char *dropin_dir;
        char *backend_override;
        char *exec_source_path;

        Config *config;
        State *state;
        Backend *backend;
        Groups groups;
        Placer placer;
        Agents agents;                  /* boostd-session processes on the bus */
        Mode mode;

        Observer observer;              /* set by the bus layer */
        EventSink sink;                 /* what the sources report to */

        PowerSource *power;             /* power supplies */
        InputSource *input;             /* input activity */
        Units *units;                   /* units as they appear */
        SeatsWatch *seats;              /* logind's seats */
        ProcMon *procmon;               /* exec and exit events */
        HintSessions hints;             /* hint sessions and their threads */
        Reach reach;                    /* where a boost reaches the CPU */
        GameModeWatch *gamemode;        /* GameMode's games */
        bool started;
} Manager;

int manager_new(const ManagerOptions *o, Manager **ret, char **ret_config_error);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);

/* Selects and starts the backend, adopts what an earlier run left,
 * restores the API state, applies every group and starts the sources. */
int manager_start(Manager *m);
/* Puts back what was found; keeps the API state for the next start. */
int manager_stop(Manager *m);
/* Stops the sources and saves the state, leaving the groups and the
 * processes as they are: the next start adopts them (as after a crash). */
void manager_detach(Manager *m);
/* The bus is connected: the sources that need it start. */
void manager_bus_ready(Manager *m);
/* ... and is about to close: those sources stop. */
void manager_bus_gone(Manager *m);

/* The API, by name; the previous state stays in force on error. */
int manager_set_boost(Manager *m, const char *group, unsigned boost);
int manager_reset_boost(Manager *m, const char *group);
int manager_get_boost(Manager *m, const char *group, unsigned *ret_base, unsigned *ret_effective);
int manager_classify(Manager *m, pid_t pid, const char *group);
int manager_set_foreground(Manager *m, pid_t pid);
/* The same for a process pinned by start time when the call came in
 * (-ESRCH if its PID names another process now); SetForeground() of a
 * user's own process takes its unit along only in user-UID.slice
 * (confine_uid; -1: any unit). */
int manager_classify_process(Manager *m, const ProcessId *id, const char *group);
int manager_set_foreground_process(Manager *m, const ProcessId *id, uid_t confine_uid);
/* Where a process is and what decided it (placer.h). */
int manager_get_process(Manager *m, pid_t pid, PlacerReport *ret);
/* An agent (agents.h) first seen on the bus: -EUSERS over its limits. */
int manager_agent_add(Manager *m, const char *name, uid_t uid, pid_t pid, Agent **ret);
/* A game an agent reported (source: its unique bus name), pinned when
 * the call came in: -EUSERS at GAMES_PER_AGENT_MAX games of that agent,
 * -ESRCH if the PID names another process now. */
int manager_agent_game(Manager *m, const char *source, const ProcessId *id, bool registered);
/* The agent left the bus (the bus layer let go of its userdata): its
 * games end and it is forgotten. */
void manager_agent_gone(Manager *m, Agent *a);
int manager_hold(Manager *m, const char *group, unsigned boost, uint32_t timeout_ms,
                 const char *reason, const char *owner, uid_t uid, uint32_t *ret_cookie);
int manager_release(Manager *m, uint32_t cookie, const char *owner);
/* A bad configuration: its error ("FILE:LINE: what") in *ret_config_error
 * (may be NULL); the running one stays. */
int manager_reload(Manager *m, char **ret_config_error);
int manager_set_mode(Manager *m, Mode mode);
int manager_set_power_state(Manager *m, PowerState state);
