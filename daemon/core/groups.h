/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The group table: one group per configured class, the inputs of its
 * effective boost (SetBoost() override, holds, input boost, power
 * state), applying it through the backend, holds with their timer, and
 * taking a new configuration. Returns negative errno; the caller words
 * errors. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "backend.h"
#include "config.h"
#include "holds.h"
#include "log.h"
#include "policy.h"
#include "state.h"

/* Told when what a client can see changes; set by the bus layer. */
typedef struct Observer {
        void *userdata;
        /* the property ("Groups", "Holds", "Mode", "PowerState") changed */
        void (*changed)(void *userdata, const char *property);
        /* a hold ended (expired, released, its group removed): its
         * client tracking (Hold.userdata) goes */
        void (*hold_gone)(void *userdata, void *hold_userdata);
} Observer;

typedef struct Group {
        char name[CLASS_NAME_MAX];
        GroupPolicy policy;
        unsigned effective;     /* last value handed to the backend */
        bool applied;
} Group;

typedef struct Groups {
        Group groups[GROUPS_MAX];       /* parallel to config->classes */
        size_t n;
        const Config *config;           /* the manager's */
        Backend *backend;               /* NULL until started */
        State *state;
        PowerState power_state;
        Holds holds;
        sd_event *event;
        sd_event_source *hold_timer;
        const LogContext *log;
        const Observer *observer;
} Groups;

void groups_init(Groups *g, const Config *c, State *state, sd_event *event, const LogContext *log,
                 const Observer *observer);
void groups_done(Groups *g);

int groups_find(const Groups *g, const char *name);
/* The names, for the backend's start(); names has GROUPS_MAX entries. */
const char *const *groups_names(const Groups *g, const char **names);
/* Base (override or configured for the power state) and effective boost. */
unsigned groups_base(const Groups *g, size_t i);
unsigned groups_effective(const Groups *g, size_t i);
/* Hands every changed effective boost to the backend. */
int groups_apply_all(Groups *g);

/* The base boost from SetBoost(): -ERANGE, -ENOENT, or the backend's
 * error with the old value kept. Saved in the state. */
int groups_set_override(Groups *g, const char *group, unsigned boost);
/* ResetBoost(): back to the configured base; -ENOENT, or the backend's
 * error with the override kept. */
int groups_clear_override(Groups *g, const char *group);
/* The SetBoost() values of an earlier run, from the state. */
void groups_restore_overrides(Groups *g);
int groups_set_input_boost(Groups *g, const char *group, unsigned boost);
/* 0 unchanged, 1 changed (applied), negative errno. */
int groups_set_power_state(Groups *g, PowerState state);

/* Holds: -ERANGE, -ENOENT, -EINVAL (reason too long), -EUSERS (too many
 * for this owner, or in all), or the backend's error (the hold is
 * dropped). */
int groups_hold(Groups *g, const char *group, unsigned boost, uint32_t timeout_ms, const char *reason,
                const char *owner, uid_t uid, Hold **ret);
/* -ENOENT: no hold of that cookie of this owner (someone else's looks
 * the same, so cookies cannot be probed). */
int groups_release(Groups *g, uint32_t cookie, const char *owner);
/* Drops the holds whose Hold.userdata is userdata (their client left). */
void groups_drop_holds_of(Groups *g, void *userdata);
/* Removes expired holds at now and re-arms the timer; the timer calls it
 * with its time, tests with theirs. */
void groups_expire_holds(Groups *g, uint64_t now);

/* Takes a new configuration: groups that appear are created, groups that
 * vanish get their processes moved back to root (backend_unplace()), their
 * boost reset and their holds dropped; overrides, holds and inputs of the
 * groups that stay are kept. On error nothing changed. */
int groups_reconfigure(Groups *g, const Config *c);
