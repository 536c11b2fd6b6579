/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure logic of a group's boost, driven by a clock the caller passes
 * in: the effective boost of a group, the input boost (rise, extension,
 * decay) and the power state (ac, battery, low with a hysteresis). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"

typedef struct GroupPolicy {
        bool has_override;      /* base set through SetBoost() */
        unsigned override;
        unsigned hold;          /* highest active hold, 0 if none */
        unsigned input;         /* input boost, 0 if inactive */
} GroupPolicy;

/* The base boost: the SetBoost() value if there is one, else the class's
 * value for the power state. */
unsigned policy_base(const ClassConfig *c, const GroupPolicy *g, PowerState state);

/* Effective boost = max(base for the power state, holds, input boost). */
unsigned policy_effective(const ClassConfig *c, const GroupPolicy *g, PowerState state);

/* The input boost of one group. Events only record the time; the timer
 * decides at its deadline whether the boost falls or waits for the last
 * event's deadline, so a burst costs one write up and one write down and
 * no timer update per event. */
typedef struct InputBoost {
        bool active;
        uint64_t last_usec;     /* time of the latest activity */
        uint64_t armed_usec;    /* deadline the timer is armed for, 0 = none */
} InputBoost;

/* Records activity at now. Returns true when the boost rises: the caller
 * applies it and arms the timer for input_boost_deadline(). */
bool input_boost_activity(InputBoost *b, uint64_t now, uint64_t duration);

/* The timer fired at now. Returns 0 when the boost falls (the caller
 * applies it), or the new deadline to re-arm the timer for when activity
 * extended the boost meanwhile. */
uint64_t input_boost_timer(InputBoost *b, uint64_t now, uint64_t duration);

/* Drops the boost at once (mode switched to manual, source stopped).
 * Returns true when it was active. */
bool input_boost_reset(InputBoost *b);

static inline unsigned input_boost_value(const InputBoost *b, unsigned boost) {
        return b->active ? boost : 0;
}

/* What the power supplies say, summed over all of them. */
typedef struct PowerSample {
        bool has_battery;       /* a system battery (not a mouse's) */
        bool on_ac;             /* a mains/USB supply online, or charging/full */
        bool has_capacity;
        unsigned capacity;      /* percent, mean over the system batteries */
} PowerSample;

/* One power supply as read from sysfs. */
typedef struct PowerSupplyInfo {
        bool is_battery;
        bool device_scope;      /* scope=Device: a peripheral's battery */
        bool online;            /* mains/USB: "online" is 1 */
        bool has_capacity;
        unsigned capacity;
        bool discharging;       /* battery: status is "Discharging" */
        bool charging_or_full;  /* battery: Charging, Full or Not charging */
} PowerSupplyInfo;

/* Adds one supply to a sample; n_batteries counts the batteries added so
 * far (for the mean capacity). */
void power_sample_add(PowerSample *s, unsigned *n_batteries, unsigned *capacity_sum,
                      const PowerSupplyInfo *info);

/* The next power state: no battery is always ac; on battery, low starts at
 * or below low_percent and ends at low_percent + hysteresis or on AC.
 * low_percent 0, or no known capacity, never enters low. */
PowerState power_state_next(PowerState cur, const PowerSample *s, unsigned low_percent,
                            unsigned hysteresis);
