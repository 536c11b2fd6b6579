/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the files of the units source share (units.c: the inotify watch of
 * the tree; units-procs.c: the units' processes; units-focus.c: app
 * scopes' focus): its state and the functions each calls of another.
 * Only for them: units.h is the interface. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "events.h"

/* units.h's typedef again rather than units.h: units.c includes this
 * file, and check-layers.py would see units.h here as a cycle. */
typedef struct Units Units;

typedef struct WatchDir {
        int wd;
        char *path;             /* below the top: "" for the top, else "/a.slice/b.service" */
        bool unit;              /* a unit or below one: its processes are placed */
        bool app_scope;         /* an app's own .scope: its xattr is followed */
        int inactive;           /* user.xdg.inactive-since: -1 unknown, 0 absent, 1 set */
        pid_t *pids;            /* what its cgroup.procs listed last, sorted */
        size_t n_pids;
        uid_t user;             /* below user@UID.service: UID, else -1 */
} WatchDir;

typedef struct UserWatches {
        uid_t uid;
        unsigned n;
        uint64_t focus_begin;   /* this user's focus changes: the rate */
        unsigned focus_n;       /* limit is theirs, no one else's */
} UserWatches;

struct Units {
        SourceContext ctx;
        bool following;                 /* auto mode: processes are placed */
        char *top;
        int fd;
        sd_event_source *io;
        WatchDir **dirs;
        size_t n_dirs;
        int wait_wd;            /* on an ancestor while the top is missing */
        bool gone;              /* the tree vanished (logged once) */
        bool limit_hit;         /* out of inotify watches (logged once) */
        bool limit_hit_now;     /* ... in the read of the whole tree running */
        UserWatches *users;     /* watches per user manager */
        size_t n_users;
        uint64_t warn_begin;    /* rate limit of warnings */
        unsigned warn_n;
};

/* units.c */
bool units_may_warn(Units *w);
UserWatches *units_user(Units *w, uid_t uid, bool create);
char *watch_full_path(const Units *w, const char *path);

/* units-procs.c */
void watch_read_procs(Units *w, WatchDir *d, bool all);

/* units-focus.c */
void watch_check_inactive(Units *w, WatchDir *d);
