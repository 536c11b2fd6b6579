/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The group table: effective boosts, applying them, holds, reconfiguring. */
#include <string.h>
#include <sys/random.h>

#include "event-util.h"
#include "groups.h"
#include "macro.h"

static void groups_changed(Groups *g, const char *property) {
        if (g->observer && g->observer->changed)
                g->observer->changed(g->observer->userdata, property);
}

static void groups_hold_gone(Groups *g, void *hold_userdata) {
        if (g->observer && g->observer->hold_gone)
                g->observer->hold_gone(g->observer->userdata, hold_userdata);
}

void groups_init(Groups *g, const Config *c, State *state, sd_event *event, const LogContext *log,
                 const Observer *observer) {
        *g = (Groups) {
                .config = c,
                .state = state,
                .event = event,
                .log = log,
                .observer = observer,
                .n = c->n_classes,
        };
        holds_init(&g->holds, c->max_holds_per_client);
        for (size_t i = 0; i < g->n; i++)
                strcpy(g->groups[i].name, c->classes[i].name);
}

void groups_done(Groups *g) {
        for (size_t i = 0; i < g->holds.n; i++)
                groups_hold_gone(g, g->holds.holds[i].userdata);
        holds_done(&g->holds);
        g->hold_timer = sd_event_source_disable_unref(g->hold_timer);
}

int groups_find(const Groups *g, const char *name) {
        for (size_t i = 0; i < g->n; i++)
                if (streq(g->groups[i].name, name))
                        return (int) i;
        return -ENOENT;
}

const char *const *groups_names(const Groups *g, const char **names) {
        for (size_t i = 0; i < g->n; i++)
                names[i] = g->groups[i].name;
        return names;
}

unsigned groups_base(const Groups *g, size_t i) {
        return policy_base(&g->config->classes[i], &g->groups[i].policy, g->power_state);
}

unsigned groups_effective(const Groups *g, size_t i) {
        return policy_effective(&g->config->classes[i], &g->groups[i].policy, g->power_state);
}

static int groups_apply(Groups *g, size_t i, bool *changed) {
        Group *gr = &g->groups[i];
        unsigned e;
        int r;

        gr->policy.hold = holds_max_for_group(&g->holds, gr->name);
        e = groups_effective(g, i);
        if (gr->applied && gr->effective == e)
                return 0;
        if (g->backend && g->backend->vt) {
                r = g->backend->vt->apply(g->backend, gr->name, e);
                if (r < 0)
                        return r;
        }
        gr->effective = e;
        gr->applied = true;
        if (changed)
                *changed = true;
        return 0;
}

int groups_apply_all(Groups *g) {
        bool changed = false;
        int ret = 0, r;

        for (size_t i = 0; i < g->n; i++) {
                r = groups_apply(g, i, &changed);
                if (r < 0 && ret == 0)
                        ret = r;
        }
        if (changed) {
                /* what was written goes on disk at once: a crash must not
                 * lose what the kernel was set to */
                if (g->state->dirty)
                        state_commit(g->state);
                groups_changed(g, "Groups");
        }
        return ret;
}

int groups_set_override(Groups *g, const char *group, unsigned boost) {
        GroupPolicy old;
        int i, r;

        if (boost > BOOST_MAX)
                return -ERANGE;
        i = groups_find(g, group);
        if (i < 0)
                return i;
        old = g->groups[i].policy;
        g->groups[i].policy.has_override = true;
        g->groups[i].policy.override = boost;
        r = groups_apply(g, (size_t) i, NULL);
        if (r < 0) {
                g->groups[i].policy = old;
                return r;
        }
        (void) state_set_override(g->state, group, boost);
        state_commit(g->state);
        groups_changed(g, "Groups");
        groups_changed(g, "Overrides");
        log_info(g->log, "Group %s: base boost set to %u.", group, boost);
        return 0;
}

int groups_clear_override(Groups *g, const char *group) {
        GroupPolicy old;
        int i, r;

        i = groups_find(g, group);
        if (i < 0)
                return i;
        if (!g->groups[i].policy.has_override)
                return 0;
        old = g->groups[i].policy;
        g->groups[i].policy.has_override = false;
        r = groups_apply(g, (size_t) i, NULL);
        if (r < 0) {
                g->groups[i].policy = old;
                return r;
        }
        state_clear_override(g->state, group);
        state_commit(g->state);
        groups_changed(g, "Groups");
        groups_changed(g, "Overrides");
        log_info(g->log, "Group %s: base boost back to the configured value.", group);
        return 0;
}

void groups_restore_overrides(Groups *g) {
        State *j = g->state;

        for (size_t i = 0; i < j->n_overrides; i++) {
                int k = groups_find(g, j->overrides[i].group);

                if (k < 0)
                        continue;
                g->groups[k].policy.has_override = true;
                g->groups[k].policy.override = j->overrides[i].boost;
        }
}

int groups_set_input_boost(Groups *g, const char *group, unsigned boost) {
        int i = groups_find(g, group);

        if (i < 0)
                return i;
        if (boost > BOOST_MAX)
                return -ERANGE;
        g->groups[i].policy.input = boost;
        return groups_apply_all(g);
}

int groups_set_power_state(Groups *g, PowerState state) {
        int r;

        if (state < 0 || state >= _POWER_STATE_MAX)
                return -EINVAL;
        if (state == g->power_state)
                return 0;
        g->power_state = state;
        groups_changed(g, "PowerState");
        r = groups_apply_all(g);
        return r < 0 ? r : 1;
}

static int on_hold_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) s;
        groups_expire_holds(userdata, usec);
        return 0;
}

static void groups_rearm_hold_timer(Groups *g) {
        uint64_t d = holds_next_deadline(&g->holds);
        int r;

        if (d == 0) {
                event_timer_disarm(g->hold_timer);
                return;
        }
        if (!g->event)
                return;
        r = event_timer_arm(g->event, &g->hold_timer, d, on_hold_timer, g, "hold-timer");
        if (r < 0)
                log_error_errno(g->log, r, "Failed to arm the hold timer: %m");
}

/* Holds changed: apply, re-arm, tell. */
static void groups_holds_changed(Groups *g) {
        (void) groups_apply_all(g);
        groups_rearm_hold_timer(g);
        groups_changed(g, "Holds");
}

void groups_expire_holds(Groups *g, uint64_t now) {
        bool any = false;
        int i;

        while ((i = holds_find_expired(&g->holds, now)) >= 0) {
                Hold *h = &g->holds.holds[i];

                log_info(g->log, "Hold %08x on %s expired.", h->cookie, h->group);
                groups_hold_gone(g, h->userdata);
                holds_remove_at(&g->holds, (size_t) i);
                any = true;
        }
        if (any)
                groups_holds_changed(g);
        else
                groups_rearm_hold_timer(g);
}

int groups_hold(Groups *g, const char *group, unsigned boost, uint32_t timeout_ms, const char *reason,
                const char *owner, uid_t uid, Hold **ret) {
        uint64_t deadline = 0;
        uint32_t cookie = 0;
        Hold *h = NULL;
        int r;

        if (boost > BOOST_MAX)
                return -ERANGE;
        r = groups_find(g, group);
        if (r < 0)
                return r;
        if (timeout_ms > 0)
                deadline = now_usec() + (uint64_t) timeout_ms * USEC_PER_MSEC;

        /* Cookies are random, so they cannot be guessed. */
        for (int tries = 0; tries < 16; tries++) {
                if (getrandom(&cookie, sizeof(cookie), 0) != sizeof(cookie))
                        return -errno;
                if (cookie == 0)
                        continue;
                r = holds_add(&g->holds, cookie, group, boost, deadline, owner, uid, reason, &h);
                if (r != -EEXIST)
                        break;
        }
        if (r < 0)
                return r;

        r = groups_apply_all(g);
        if (r < 0) {
                (void) holds_release(&g->holds, cookie, owner, NULL);
                (void) groups_apply_all(g);
                return r;
        }
        groups_rearm_hold_timer(g);
        groups_changed(g, "Holds");
        log_info(g->log, "Hold %08x: %s at least %u for %s (%s).", cookie, group, boost, owner,
                 reason && reason[0] ? reason : "no reason given");
        *ret = h;
        return 0;
}

int groups_release(Groups *g, uint32_t cookie, const char *owner) {
        void *ud = NULL;

        if (holds_release(&g->holds, cookie, owner, &ud) < 0)
                return -ENOENT;
        groups_hold_gone(g, ud);
        groups_holds_changed(g);
        log_info(g->log, "Hold %08x released.", cookie);
        return 0;
}

void groups_drop_holds_of(Groups *g, void *userdata) {
        bool any = false;

        for (size_t i = 0; i < g->holds.n;) {
                if (g->holds.holds[i].userdata == userdata) {
                        log_info(g->log, "Hold %08x ended: its client left the bus.", g->holds.holds[i].cookie);
                        groups_hold_gone(g, userdata);
                        holds_remove_at(&g->holds, i);
                        any = true;
                } else
                        i++;
        }
        if (any)
                groups_holds_changed(g);
}

/* A group the new configuration has no class for: its processes back to
 * root, its boost to 0, its Classify() entries and holds gone. */
static void groups_remove(Groups *g, const char *name) {
        State *j = g->state;

        (void) backend_release(g->backend, name);
        for (size_t p = 0; p < j->n_classified;) {
                if (streq(j->classified[p].group, name))
                        state_pid_remove(&j->classified, &j->n_classified, j->classified[p].id.pid);
                else
                        p++;
        }
        for (size_t h = 0; h < g->holds.n;) {
                if (streq(g->holds.holds[h].group, name)) {
                        groups_hold_gone(g, g->holds.holds[h].userdata);
                        holds_remove_at(&g->holds, h);
                } else
                        h++;
        }
}

int groups_reconfigure(Groups *g, const Config *c) {
        Group old[GROUPS_MAX];
        size_t old_n = g->n;
        const char *names[GROUPS_MAX];
        const Config *old_config = g->config;
        int r;

        memcpy(old, g->groups, sizeof(old));
        memset(g->groups, 0, sizeof(g->groups));
        g->n = c->n_classes;
        for (size_t i = 0; i < c->n_classes; i++) {
                strcpy(g->groups[i].name, c->classes[i].name);
                for (size_t k = 0; k < old_n; k++)
                        if (streq(old[k].name, c->classes[i].name)) {
                                g->groups[i].policy = old[k].policy;
                                g->groups[i].applied = old[k].applied;
                                g->groups[i].effective = old[k].effective;
                        }
        }
        g->config = c;

        if (g->backend && g->backend->vt) {
                r = g->backend->vt->start(g->backend, groups_names(g, names), g->n);
                if (r < 0) {
                        g->config = old_config;
                        memcpy(g->groups, old, sizeof(old));
                        g->n = old_n;
                        return r;
                }
                for (size_t k = 0; k < old_n; k++)
                        if (groups_find(g, old[k].name) < 0)
                                groups_remove(g, old[k].name);
        }
        g->holds.max_per_owner = c->max_holds_per_client;
        (void) groups_apply_all(g);
        groups_rearm_hold_timer(g);
        state_commit(g->state);
        groups_changed(g, "Groups");
        groups_changed(g, "Overrides");
        groups_changed(g, "Holds");
        return 0;
}
