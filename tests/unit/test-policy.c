/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Effective boost = max(base for the power state, holds, input boost). */
#include "tests.h"

#include "policy.h"

static const ClassConfig interactive = { "interactive", { 10, 5, 0 } };

static void test_base_follows_power_state(void **state) {
        GroupPolicy g = {};

        (void) state;
        assert_int_equal(policy_base(&interactive, &g, POWER_AC), 10);
        assert_int_equal(policy_base(&interactive, &g, POWER_BATTERY), 5);
        assert_int_equal(policy_base(&interactive, &g, POWER_LOW), 0);
        assert_int_equal(policy_effective(&interactive, &g, POWER_BATTERY), 5);
        /* an invalid state is treated as AC */
        assert_int_equal(policy_base(&interactive, &g, _POWER_STATE_MAX), 10);
}

static void test_override_wins_in_every_state(void **state) {
        GroupPolicy g = { .has_override = true, .override = 3 };

        (void) state;
        for (PowerState s = 0; s < _POWER_STATE_MAX; s++)
                assert_int_equal(policy_base(&interactive, &g, s), 3);
        g.override = 0;
        assert_int_equal(policy_effective(&interactive, &g, POWER_AC), 0);
}

static void test_max_of_sources(void **state) {
        GroupPolicy g = { .hold = 40 };

        (void) state;
        assert_int_equal(policy_effective(&interactive, &g, POWER_AC), 40);
        g.input = 60;
        assert_int_equal(policy_effective(&interactive, &g, POWER_AC), 60);
        g.hold = 0;
        g.input = 0;
        assert_int_equal(policy_effective(&interactive, &g, POWER_AC), 10);
        /* a hold below the base does not lower it */
        g.hold = 2;
        assert_int_equal(policy_effective(&interactive, &g, POWER_AC), 10);
        assert_int_equal(policy_effective(&interactive, &g, POWER_LOW), 2);
        /* clamped to 100 */
        g.input = 250;
        assert_int_equal(policy_effective(&interactive, &g, POWER_AC), 100);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_base_follows_power_state),
                cmocka_unit_test(test_override_wins_in_every_state),
                cmocka_unit_test(test_max_of_sources),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
