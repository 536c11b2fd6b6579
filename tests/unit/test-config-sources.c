/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* config-sources.c: the [Input] and [Power] sections, their defaults,
 * the shipped file and file:line errors. */
#include "tests.h"

#include "config.h"

static int load_text(const char *dir, const char *text, Config **ret, char **ret_error) {
        char path[4096];

        write_file(dir, "test.conf", "%s", text);
        snprintf(path, sizeof(path), "%s/test.conf", dir);
        return config_load(path, false, NULL, ret, ret_error);
}

static void test_config_defaults_and_good(void **state) {
        char *dir = tmpdir_new(), *error = NULL;
        Config *c = NULL;

        (void) state;
        assert_int_equal(config_load(NULL, true, NULL, &c, &error), 0);
        assert_string_equal(c->input.group, "interactive");
        assert_int_equal(c->input.boost, 30);
        assert_int_equal(c->input.duration_ms, 500);
        assert_int_equal(c->input.kinds, INPUT_ALL);
        assert_int_equal(c->power.low_percent, 15);
        assert_int_equal(c->power.hysteresis, 5);
        config_free(c);

        assert_int_equal(load_text(dir,
                                   "[Input]\nGroup=games\nBoost=45\nDurationMs=120\n"
                                   "Devices=touchscreen, keyboard\n"
                                   "[Power]\nLowBatteryPercent=0\nLowBatteryHysteresis=50\n"
                                   "[Class:games]\nBoost=1\n", &c, &error), 0);
        assert_null(error);
        assert_string_equal(c->input.group, "games");
        assert_int_equal(c->input.boost, 45);
        assert_int_equal(c->input.duration_ms, 120);
        assert_int_equal(c->input.kinds, INPUT_TOUCHSCREEN | INPUT_KEYBOARD);
        assert_int_equal(c->power.low_percent, 0);
        assert_int_equal(c->power.hysteresis, 50);
        config_free(c);
        tmpdir_free(dir);
}

/* The shipped file spells out the built-in defaults. */
static void test_shipped_config(void **state) {
        Config *c = NULL, *d = NULL;
        char *error = NULL;

        (void) state;
        assert_int_equal(config_load(SOURCE_ROOT "/conf/boostd.conf", false, NULL, &c, &error), 0);
        assert_int_equal(config_load(NULL, true, NULL, &d, &error), 0);
        assert_string_equal(c->input.group, d->input.group);
        assert_int_equal(c->input.boost, d->input.boost);
        assert_int_equal(c->input.duration_ms, d->input.duration_ms);
        assert_int_equal(c->input.kinds, d->input.kinds);
        assert_int_equal(c->power.low_percent, d->power.low_percent);
        assert_int_equal(c->power.hysteresis, d->power.hysteresis);
        config_free(c);
        config_free(d);
}

static const struct {
        const char *text;
        int error;
        const char *message;
} bad_cases[] = {
        { "[Input]\nBoost=101\n", -ERANGE, "2: Boost=101: value out of range 0..100" },
        { "[Input]\nDurationMs=0\n", -ERANGE, "2: DurationMs=0: value out of range 1..60000" },
        { "[Input]\nDurationMs=60001\n", -ERANGE, "2: DurationMs=60001: value out of range 1..60000" },
        { "[Input]\nDurationMs=fast\n", -EINVAL, "2: DurationMs=fast: not a number" },
        { "[Input]\nDevices=keyboard,joystick\n", -EINVAL,
          "2: Devices=keyboard,joystick: expected a list of keyboard, pointer and touchscreen" },
        { "[Input]\nDevices=,\n", -EINVAL,
          "2: Devices=,: expected a list of keyboard, pointer and touchscreen" },
        { "[Input]\nGroup=Bad Name\n", -EINVAL, "2: Group=Bad Name: invalid class name" },
        { "# comment\n[Input]\nGroup=games\n", -ENOENT, "3: Group=games: unknown class" },
        { "[Input]\nTimeout=3\n", -EINVAL, "2: unknown key 'Timeout' in section [Input]" },
        { "[Power]\nLowBatteryPercent=51\n", -ERANGE,
          "2: LowBatteryPercent=51: value out of range 0..50" },
        { "[Power]\nLowBatteryHysteresis=-1\n", -EINVAL, "2: LowBatteryHysteresis=-1: not a number" },
        { "[Power]\nSource=upower\n", -EINVAL, "2: unknown key 'Source' in section [Power]" },
        { "[Power]\n[Power]\n", -EEXIST, "2: duplicate section [Power]" },
};

static void test_config_bad_lines(void **state) {
        char *dir = tmpdir_new();

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad_cases); i++) {
                char expected[1024];
                Config *c = NULL;
                char *error = NULL;
                int r;

                r = load_text(dir, bad_cases[i].text, &c, &error);
                snprintf(expected, sizeof(expected), "%s/test.conf:%s", dir, bad_cases[i].message);
                if (!error || strcmp(error, expected) != 0)
                        fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, error, expected);
                assert_non_null(error);
                assert_string_equal(error, expected);
                assert_int_equal(r, bad_cases[i].error);
                assert_null(c);
                free(error);
        }
        tmpdir_free(dir);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_config_defaults_and_good),
                cmocka_unit_test(test_config_bad_lines),
                cmocka_unit_test(test_shipped_config),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
