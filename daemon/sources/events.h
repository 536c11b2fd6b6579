/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the event sources (units.c, seats-watch.c, procmon.c, input.c,
 * power.c, gamemode.c) report, and the little they are given: each gets a
 * SourceContext at creation and never sees the manager, which
 * implements the sink. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "config.h"
#include "log.h"
#include "util.h"

typedef struct EventSink {
        void *userdata;
        /* A process to put where it belongs (it execed, or showed up in a
         * unit); cgroup is where the source found it, NULL: unknown. */
        int (*place)(void *userdata, pid_t pid, const char *cgroup);
        /* The leader of a thread group exited: the process may live on. */
        void (*exited)(void *userdata, pid_t pid);
        /* The cgroup directory at cgroup (a path below the v2 root) is
         * gone: a unit stopped, or systemd is about to make it anew. */
        void (*cgroup_gone)(void *userdata, const char *cgroup);
        /* Events were lost: every unit's processes are to be read again. */
        void (*lost)(void *userdata);
        /* An app's scope (cgroup path unit) gained the focus on seat
         * (seats.h), or lost it (seat NULL). */
        void (*focus)(void *userdata, const char *unit, const char *seat);
        /* logind's seats changed (a user switch, a seat gone). */
        void (*seats_changed)(void *userdata);
        /* The input boost of group is now boost (0: it ended). */
        int (*input_boost)(void *userdata, const char *group, unsigned boost);
        /* The power supplies say state. */
        void (*power)(void *userdata, PowerState state);
        /* GameMode registered (or unregistered) a game; games_gone: its
         * service left the bus, with every game it had. */
        int (*game)(void *userdata, pid_t pid, bool registered);
        void (*games_gone)(void *userdata);
} EventSink;

typedef struct SourceContext {
        sd_event *event;
        sd_bus *bus;                    /* NULL before the bus is connected */
        const LogContext *log;
        const char *root;               /* "/" or a test's root prefix */
        const EventSink *sink;
} SourceContext;

/* Whether the sources run on a test's tree (see root_is_host()). */
static inline bool source_below_root(const SourceContext *ctx) {
        return !root_is_host(ctx->root);
}
