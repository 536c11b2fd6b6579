/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure logic of a group's boost: effective boost, input boost, power
 * state. */
#include "macro.h"
#include "policy.h"

unsigned policy_base(const ClassConfig *c, const GroupPolicy *g, PowerState state) {
        if (g->has_override)
                return MIN(g->override, BOOST_MAX);
        if (state < 0 || state >= _POWER_STATE_MAX)
                state = POWER_AC;
        return c->boost[state];
}

unsigned policy_effective(const ClassConfig *c, const GroupPolicy *g, PowerState state) {
        unsigned e = policy_base(c, g, state);

        e = MAX(e, g->hold);
        e = MAX(e, g->input);
        return MIN(e, BOOST_MAX);
}

bool input_boost_activity(InputBoost *b, uint64_t now, uint64_t duration) {
        b->last_usec = now;
        if (b->active)
                return false;
        b->active = true;
        b->armed_usec = now + duration;
        return true;
}

uint64_t input_boost_timer(InputBoost *b, uint64_t now, uint64_t duration) {
        uint64_t deadline;

        if (!b->active)
                return 0;
        deadline = b->last_usec + duration;
        if (deadline > now) {
                b->armed_usec = deadline;
                return deadline;
        }
        b->active = false;
        b->armed_usec = 0;
        return 0;
}

bool input_boost_reset(InputBoost *b) {
        bool was = b->active;

        *b = (InputBoost) {};
        return was;
}

void power_sample_add(PowerSample *s, unsigned *n_batteries, unsigned *capacity_sum,
                      const PowerSupplyInfo *info) {
        if (!info->is_battery) {
                if (info->online)
                        s->on_ac = true;
                return;
        }
        if (info->device_scope)
                return;
        s->has_battery = true;
        if (info->charging_or_full && !info->discharging)
                s->on_ac = true;
        if (info->has_capacity) {
                *capacity_sum += MIN(info->capacity, 100U);
                (*n_batteries)++;
                s->capacity = *capacity_sum / *n_batteries;
                s->has_capacity = true;
        }
}

PowerState power_state_next(PowerState cur, const PowerSample *s, unsigned low_percent,
                            unsigned hysteresis) {
        if (!s->has_battery || s->on_ac)
                return POWER_AC;
        if (low_percent == 0 || !s->has_capacity)
                return POWER_BATTERY;
        if (cur == POWER_LOW)
                return s->capacity >= low_percent + hysteresis ? POWER_BATTERY : POWER_LOW;
        return s->capacity <= low_percent ? POWER_LOW : POWER_BATTERY;
}
