/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How a group's effective boost is computed; pure logic. */
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
