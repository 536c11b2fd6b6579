/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How a group's effective boost is computed; pure logic. */
#pragma once

#include <stdbool.h>

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
