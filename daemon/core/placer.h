/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The placer: where a process goes and moving it there. It gathers what
 * has a say (Classify(), Pin=, GameMode's games, the foreground, the
 * rules, DefaultClass=: see classify.h), asks classify.c for the class
 * and moves the process through the backend, recording it in the state.
 * It also owns the foreground and the games, and forgets processes that
 * exit. Returns negative errno (-ESRCH: no such process); the caller
 * words errors. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "classify.h"
#include "groups.h"
#include "log.h"
#include "process.h"
#include "seats.h"
#include "state.h"
#include "units.h"

/* The foreground of one seat: SetForeground()'s process and its app's
 * unit, or an app unit a focus source named (with no process). The
 * seat is the one where the process's owner (the scope's user) has the
 * active session; "" holds the foreground of processes of no seat's
 * user (all of them without logind). */
typedef struct Foreground {
        char seat[SEAT_NAME_MAX];
        uid_t uid;                      /* the seat's user when it was set */
        ProcessId id;                   /* pid 0: none */
        char *unit;                     /* cgroup path; NULL: the process only */
} Foreground;

typedef struct PlacerGame {
        ProcessId id;
        char *source;                   /* who reported it, see placer_game_register() */
} PlacerGame;

typedef struct Placer {
        const LogContext *log;
        const char *proc_root;
        sd_event *event;
        State *state;
        Groups *groups;                 /* names and the configuration */
        Backend *backend;               /* NULL until started */
        Units *units;                   /* NULL without unit discovery */
        bool auto_mode;                 /* placement by rules is on */

        char *seats_dir;                /* <root>/run/systemd/seats */
        Foreground foregrounds[FOREGROUNDS_MAX];
        size_t n_foregrounds;
        PlacerGame *games;              /* registered with GameMode */
        size_t n_games;
        pid_t *lingering;               /* leader exited, other threads live */
        size_t n_lingering;
        sd_event_source *linger_timer;  /* looks at them again */
        /* The last processes boostd took back out of a group, so that a
         * child forked there still counts as boostd's after its parent
         * left (placer_put_there()); a ring. */
        StatePid released[64];
        size_t n_released;
        /* The ancestors whose decision some placed process inherited
         * (StatePid.from), so that an exit or a changed decision looks
         * through the placed list only when it has heirs there. */
        pid_t *deciders;
        size_t n_deciders;
        /* The launch boost in force ([Launch]): a hold of owner "launch"
         * on the group of the app brought to the foreground just after it
         * started, ended early by the next foreground; 0 for none. */
        uint32_t launch_cookie;
        ProcessId launch_id;
        char *launch_unit;              /* its app's unit, or NULL */
} Placer;

int placer_init(Placer *p, const char *root, const char *proc_root, sd_event *event, State *state,
                Groups *groups, const LogContext *log);
void placer_done(Placer *p);

/* Classify(): the process goes to group index g and stays there until it
 * exits; root (0) ends that. Recorded in the state. id->start_time, if
 * not 0, pins the process meant (-ESRCH if the PID names another now). */
int placer_classify(Placer *p, const ProcessId *id, size_t g);
/* SetForeground(): the process and its app's unit are the foreground of
 * the seat of the process's owner, replacing that seat's; with
 * confine_uid (not -1), the unit only if it lies in that user's
 * user-UID.slice. */
int placer_set_foreground(Placer *p, const ProcessId *id, uid_t confine_uid);
/* A focus source: the app at the cgroup path unit has the focus on seat
 * (unit NULL: nothing there has). */
int placer_set_foreground_unit(Placer *p, const char *seat, const char *unit);
/* An app scope lost the focus: ends it on the seat where it had it. */
void placer_unfocus_unit(Placer *p, const char *unit);
/* The foreground of seat, NULL if it has none. */
const Foreground *placer_foreground(Placer *p, const char *seat);
/* logind's seats changed: a seat's foreground ends when its user no
 * longer has the active session there. */
void placer_seats_changed(Placer *p);

/* Auto mode: puts a process where everything that has a say puts it;
 * cgroup is where the caller found it (NULL: look it up). Does nothing
 * in manual mode, to an explicitly classified process, or to one moved
 * elsewhere by hand since boostd placed it. */
int placer_place_auto(Placer *p, pid_t pid, const char *cgroup);
/* Auto mode starts, or the rules changed: everything is placed again. */
void placer_place_all(Placer *p);
/* Puts back what the API set in an earlier run (from the state):
 * classified processes that still exist and the foreground. */
void placer_restore(Placer *p);

/* Why a process is where it is (GetProcess()). */
typedef struct PlacerReport {
        char group[CLASS_NAME_MAX];     /* the group it is in, "" if the
                                         * backend cannot tell */
        size_t class;                   /* the class that decides for it */
        const char *decided_by;         /* classify_reason_to_string(), or
                                         * "moved by hand", "left where it
                                         * is", "manual mode" */
        const char *rule;               /* the rule that matched, or NULL */
        pid_t from;                     /* inherited: the deciding ancestor */
} PlacerReport;

/* Fills *ret for pid; -ESRCH if there is no such process. The strings
 * live as long as the configuration. */
int placer_explain(Placer *p, pid_t pid, PlacerReport *ret);

/* The leader of a thread group exited: forgets what is kept about the
 * process once it is gone (no other thread lives). */
void placer_forget(Placer *p, pid_t pid);

/* GameMode: a registered game goes to performance until it unregisters
 * (Classify() and Pin= still outrank it). source says who reported it:
 * "" for a GameMode service on the system bus, else the unique bus name
 * of an agent forwarding its user's gamemoded (boostd-session);
 * a game stays one while any source has it. Clear drops every game of
 * source. */
int placer_game_register(Placer *p, pid_t pid, const char *source);
/* The same for the process pinned when a call came in (-ESRCH if its
 * PID names another process now). */
int placer_game_register_id(Placer *p, const ProcessId *id, const char *source);
int placer_game_unregister(Placer *p, pid_t pid, const char *source);
void placer_games_clear(Placer *p, const char *source);
/* The games source has now; whether pid is one of them. */
size_t placer_games_of(const Placer *p, const char *source);
bool placer_game_has(const Placer *p, pid_t pid, const char *source);
bool placer_is_game(Placer *p, pid_t pid);
