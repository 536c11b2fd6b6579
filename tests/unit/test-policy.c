/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* policy.c: effective boost = max(base for the power state, holds, input
 * boost); the input boost and power state machines. */
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

#define MS 1000ULL

static void test_input_rise_extend_decay(void **state) {
        const uint64_t d = 500 * MS;
        InputBoost b = {};
        unsigned writes = 0;
        uint64_t t;

        (void) state;
        assert_int_equal(input_boost_value(&b, 30), 0);
        /* the first event raises: one write, timer at t + d */
        assert_true(input_boost_activity(&b, 1000 * MS, d));
        writes++;
        assert_int_equal(input_boost_value(&b, 30), 30);
        assert_int_equal(b.armed_usec, 1500 * MS);
        /* a burst: no write, the timer is not touched */
        for (t = 1010 * MS; t < 1400 * MS; t += 10 * MS)
                if (input_boost_activity(&b, t, d))
                        writes++;
        assert_int_equal(writes, 1);
        assert_int_equal(b.armed_usec, 1500 * MS);
        /* at the deadline the last event extends it: re-arm, no write */
        assert_int_equal(input_boost_timer(&b, 1500 * MS, d), 1390 * MS + d);
        assert_int_equal(input_boost_value(&b, 30), 30);
        /* no more events: at the new deadline it falls, one write */
        assert_int_equal(input_boost_timer(&b, 1890 * MS, d), 0);
        writes++;
        assert_int_equal(input_boost_value(&b, 30), 0);
        assert_int_equal(writes, 2);
        /* a later event rises again */
        assert_true(input_boost_activity(&b, 5000 * MS, d));
        assert_int_equal(b.armed_usec, 5500 * MS);
        /* a timer firing late still falls */
        assert_int_equal(input_boost_timer(&b, 9000 * MS, d), 0);
        /* a stray timer when inactive does nothing */
        assert_int_equal(input_boost_timer(&b, 9100 * MS, d), 0);
        assert_false(b.active);
}

static void test_input_reset(void **state) {
        InputBoost b = {};

        (void) state;
        assert_false(input_boost_reset(&b));
        assert_true(input_boost_activity(&b, 10, 100));
        assert_true(input_boost_reset(&b));
        assert_int_equal(input_boost_value(&b, 30), 0);
        assert_int_equal(b.armed_usec, 0);
        /* after a reset the next event rises again */
        assert_true(input_boost_activity(&b, 20, 100));
}

static PowerSample sample(bool bat, bool ac, unsigned cap) {
        return (PowerSample) { .has_battery = bat, .on_ac = ac, .has_capacity = bat, .capacity = cap };
}

static void test_power_no_battery_is_ac(void **state) {
        PowerSample s = sample(false, false, 0);

        (void) state;
        assert_int_equal(power_state_next(POWER_AC, &s, 15, 5), POWER_AC);
        assert_int_equal(power_state_next(POWER_LOW, &s, 15, 5), POWER_AC);
}

static void test_power_hysteresis(void **state) {
        static const struct {
                unsigned capacity;
                PowerState want;
        } steps[] = {
                { 80, POWER_BATTERY }, { 16, POWER_BATTERY }, { 15, POWER_LOW },
                { 12, POWER_LOW }, { 16, POWER_LOW }, { 19, POWER_LOW },
                { 20, POWER_BATTERY }, { 16, POWER_BATTERY }, { 15, POWER_LOW },
        };
        PowerState st = POWER_AC;
        PowerSample s;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                s = sample(true, false, steps[i].capacity);
                st = power_state_next(st, &s, 15, 5);
                if (st != steps[i].want)
                        fprintf(stderr, "step %zu: capacity %u\n", i, steps[i].capacity);
                assert_int_equal(st, steps[i].want);
        }
        /* plugging in ends low at once */
        s = sample(true, true, 10);
        assert_int_equal(power_state_next(POWER_LOW, &s, 15, 5), POWER_AC);
        /* unplugged again below the threshold: low straight from ac */
        s = sample(true, false, 10);
        assert_int_equal(power_state_next(POWER_AC, &s, 15, 5), POWER_LOW);
        /* LowBatteryPercent=0: never low */
        s = sample(true, false, 0);
        assert_int_equal(power_state_next(POWER_BATTERY, &s, 0, 5), POWER_BATTERY);
        /* no hysteresis: leaves low just above the threshold */
        s = sample(true, false, 16);
        assert_int_equal(power_state_next(POWER_LOW, &s, 15, 0), POWER_BATTERY);
        /* a battery without a capacity file is never low */
        s = (PowerSample) { .has_battery = true };
        assert_int_equal(power_state_next(POWER_BATTERY, &s, 15, 5), POWER_BATTERY);
}

static PowerSample sum(const PowerSupplyInfo *infos, size_t n) {
        PowerSample s = {};
        unsigned n_bat = 0, total = 0;

        for (size_t i = 0; i < n; i++)
                power_sample_add(&s, &n_bat, &total, &infos[i]);
        return s;
}

static void test_power_sample(void **state) {
        const PowerSupplyInfo mains_off = { .online = false };
        const PowerSupplyInfo mains_on = { .online = true };
        const PowerSupplyInfo bat40 = { .is_battery = true, .has_capacity = true, .capacity = 40,
                                        .discharging = true };
        const PowerSupplyInfo bat20 = { .is_battery = true, .has_capacity = true, .capacity = 20,
                                        .discharging = true };
        const PowerSupplyInfo mouse = { .is_battery = true, .device_scope = true,
                                        .has_capacity = true, .capacity = 3, .discharging = true };
        const PowerSupplyInfo charging = { .is_battery = true, .has_capacity = true, .capacity = 50,
                                           .charging_or_full = true };
        PowerSample s;

        (void) state;
        s = sum((PowerSupplyInfo[]) { mains_off, bat40, bat20 }, 3);
        assert_true(s.has_battery);
        assert_false(s.on_ac);
        assert_int_equal(s.capacity, 30);
        s = sum((PowerSupplyInfo[]) { mains_on, bat40 }, 2);
        assert_true(s.on_ac);
        /* a mouse's battery is not the system's */
        s = sum((PowerSupplyInfo[]) { mains_off, mouse }, 2);
        assert_false(s.has_battery);
        assert_int_equal(power_state_next(POWER_BATTERY, &s, 15, 5), POWER_AC);
        /* no mains supply listed, the battery charges: on AC */
        s = sum(&charging, 1);
        assert_true(s.on_ac);
}

/* What the manager computes: max(base for the power state, holds, input). */
static void test_combined(void **state) {
        GroupPolicy g = {};
        InputBoost b = {};
        PowerState st = POWER_AC;
        PowerSample s;

        (void) state;
        assert_int_equal(policy_effective(&interactive, &g, st), 10);
        /* input activity raises to 30 */
        assert_true(input_boost_activity(&b, 0, 100 * MS));
        g.input = input_boost_value(&b, 30);
        assert_int_equal(policy_effective(&interactive, &g, st), 30);
        /* a hold of 40 wins over the input boost */
        g.hold = 40;
        assert_int_equal(policy_effective(&interactive, &g, st), 40);
        /* the battery runs low: the base drops, hold and input stay */
        s = sample(true, false, 5);
        st = power_state_next(st, &s, 15, 5);
        assert_int_equal(st, POWER_LOW);
        g.hold = 0;
        assert_int_equal(policy_effective(&interactive, &g, st), 30);
        /* input decays: the low-battery base, 0 */
        assert_int_equal(input_boost_timer(&b, 100 * MS, 100 * MS), 0);
        g.input = input_boost_value(&b, 30);
        assert_int_equal(policy_effective(&interactive, &g, st), 0);
        /* charging to 18%: still low until unplugged or 20% */
        s = sample(true, false, 18);
        st = power_state_next(st, &s, 15, 5);
        assert_int_equal(policy_effective(&interactive, &g, st), 0);
        s = sample(true, false, 20);
        st = power_state_next(st, &s, 15, 5);
        assert_int_equal(policy_effective(&interactive, &g, st), 5);
        s = sample(true, true, 20);
        st = power_state_next(st, &s, 15, 5);
        assert_int_equal(policy_effective(&interactive, &g, st), 10);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_base_follows_power_state),
                cmocka_unit_test(test_override_wins_in_every_state),
                cmocka_unit_test(test_max_of_sources),
                cmocka_unit_test(test_input_rise_extend_decay),
                cmocka_unit_test(test_input_reset),
                cmocka_unit_test(test_power_no_battery_is_ac),
                cmocka_unit_test(test_power_hysteresis),
                cmocka_unit_test(test_power_sample),
                cmocka_unit_test(test_combined),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
