/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* power.c and input.c: the power supply reader, the input kinds, and
 * both sources driving a manager against a temporary tree: a fake
 * power_supply tree and FIFOs standing in for /dev/input/eventN, with the
 * manager's own event loop run by the test. */
#include "tests.h"

#include <linux/input.h>
#include <sys/inotify.h>

#include "config.h"
#include "input.h"
#include "manager.h"
#include "power.h"

static const char *const classes[] = { "background", "interactive", "performance" };

static void supply(const char *root, const char *name, const char *type, const char *online,
                   const char *capacity, const char *status) {
        char p[512];

        snprintf(p, sizeof(p), "sys/class/power_supply/%s", name);
        mkdirs(root, p);
        snprintf(p, sizeof(p), "sys/class/power_supply/%s/type", name);
        write_file(root, p, "%s\n", type);
        if (online) {
                snprintf(p, sizeof(p), "sys/class/power_supply/%s/online", name);
                write_file(root, p, "%s\n", online);
        }
        if (capacity) {
                snprintf(p, sizeof(p), "sys/class/power_supply/%s/capacity", name);
                write_file(root, p, "%s\n", capacity);
        }
        if (status) {
                snprintf(p, sizeof(p), "sys/class/power_supply/%s/status", name);
                write_file(root, p, "%s\n", status);
        }
}

static void test_power_reader(void **state) {
        char *root = tmpdir_new(), dir[4096];
        PowerSample s;

        (void) state;
        snprintf(dir, sizeof(dir), "%s/sys/class/power_supply", root);
        /* no directory: no supplies */
        assert_int_equal(power_read_class_dir(dir, &s), 0);
        assert_false(s.has_battery);

        supply(root, "AC", "Mains", "0", NULL, NULL);
        supply(root, "BAT0", "Battery", NULL, "37", "Discharging");
        supply(root, "hidpp_battery_0", "Battery", NULL, "5", "Discharging");
        write_file(root, "sys/class/power_supply/hidpp_battery_0/scope", "Device\n");
        assert_int_equal(power_read_class_dir(dir, &s), 0);
        assert_true(s.has_battery);
        assert_false(s.on_ac);
        assert_int_equal(s.capacity, 37);

        write_file(root, "sys/class/power_supply/AC/online", "1\n");
        write_file(root, "sys/class/power_supply/BAT0/status", "Charging\n");
        assert_int_equal(power_read_class_dir(dir, &s), 0);
        assert_true(s.on_ac);
        /* garbage in capacity: the capacity is unknown, not 0 */
        write_file(root, "sys/class/power_supply/AC/online", "0\n");
        write_file(root, "sys/class/power_supply/BAT0/status", "Discharging\n");
        write_file(root, "sys/class/power_supply/BAT0/capacity", "lots\n");
        assert_int_equal(power_read_class_dir(dir, &s), 0);
        assert_false(s.has_capacity);
        tmpdir_free(root);
}

static const char *table_get(void *userdata, const char *key) {
        const char *const *kv = userdata;

        for (; kv[0]; kv += 2)
                if (strcmp(kv[0], key) == 0)
                        return kv[1];
        return NULL;
}

static void test_input_kinds(void **state) {
        const char *kbd[] = { "ID_INPUT", "1", "ID_INPUT_KEY", "1", "ID_INPUT_KEYBOARD", "1", NULL };
        const char *pad[] = { "ID_INPUT_TOUCHPAD", "1", NULL };
        const char *ts[] = { "ID_INPUT_TOUCHSCREEN", "1", "ID_INPUT_MOUSE", "0", NULL };
        const char *lid[] = { "ID_INPUT", "1", "ID_INPUT_SWITCH", "1", NULL };
        unsigned k;

        (void) state;
        assert_int_equal(input_kinds_from_properties(table_get, kbd), INPUT_KEYBOARD);
        assert_int_equal(input_kinds_from_properties(table_get, pad), INPUT_POINTER);
        assert_int_equal(input_kinds_from_properties(table_get, ts), INPUT_TOUCHSCREEN);
        assert_int_equal(input_kinds_from_properties(table_get, lid), 0);
        assert_int_equal(input_kinds_from_string("pointer", &k), 0);
        assert_int_equal(k, INPUT_POINTER);
        assert_int_equal(input_kinds_from_string("keyboard pointer,touchscreen", &k), 0);
        assert_int_equal(k, INPUT_ALL);
        assert_int_equal(input_kinds_from_string("mouse", &k), -EINVAL);
}

/* A manager on a temporary tree with a battery and a keyboard FIFO. */
typedef struct Fixture {
        char *root;
        Manager *m;
        int writer;             /* the keyboard FIFO's writing end */
        int boost_watch;        /* inotify on interactive's schedtune.boost */
} Fixture;

static int fixture_setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));
        ManagerOptions o = {};
        char *error = NULL, p[4096];

        f->root = tmpdir_new();
        make_schedtune_tree(f->root, classes, 3);
        mkdirs(f->root, "etc");
        write_file(f->root, "etc/boostd.conf",
                   "[Input]\nBoost=40\nDurationMs=100\nDevices=keyboard\n"
                   "[Power]\nLowBatteryPercent=20\nLowBatteryHysteresis=5\n");
        supply(f->root, "AC", "Mains", "1", NULL, NULL);
        supply(f->root, "BAT0", "Battery", NULL, "50", "Charging");
        mkdirs(f->root, "dev/input");
        mkdirs(f->root, "run/udev/data");
        write_file(f->root, "run/udev/data/+input:event3", "E:ID_INPUT=1\nE:ID_INPUT_KEYBOARD=1\n");
        write_file(f->root, "run/udev/data/+input:event4", "E:ID_INPUT=1\nE:ID_INPUT_MOUSE=1\n");
        snprintf(p, sizeof(p), "%s/dev/input/event3", f->root);
        assert_int_equal(mkfifo(p, 0600), 0);
        snprintf(p, sizeof(p), "%s/dev/input/event4", f->root);
        assert_int_equal(mkfifo(p, 0600), 0);

        o.root = f->root;
        assert_int_equal(manager_new(&o, &f->m, &error), 0);
        assert_int_equal(manager_start(f->m), 0);
        snprintf(p, sizeof(p), "%s/dev/input/event3", f->root);
        f->writer = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(f->writer >= 0);
        f->boost_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        snprintf(p, sizeof(p), "%s/dev/stune/interactive/schedtune.boost", f->root);
        assert_true(inotify_add_watch(f->boost_watch, p, IN_CLOSE_WRITE) >= 0);
        *state = f;
        return 0;
}

static int fixture_teardown(void **state) {
        Fixture *f = *state;

        close(f->boost_watch);
        if (f->writer >= 0)
                close(f->writer);
        manager_stop(f->m);
        manager_free(f->m);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

/* Runs the loop until cond holds or a second passes. */
static bool run_until(Fixture *f, bool (*cond)(Fixture *f)) {
        for (int i = 0; i < 100; i++) {
                if (cond(f))
                        return true;
                assert_true(sd_event_run(f->m->event, 10 * 1000) >= 0);
        }
        return cond(f);
}

static void run_for(Fixture *f, unsigned ms) {
        for (unsigned i = 0; i < ms / 5; i++)
                assert_true(sd_event_run(f->m->event, 5 * 1000) >= 0);
}

static unsigned writes_seen(Fixture *f) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        unsigned n = 0;
        ssize_t l;

        while ((l = read(f->boost_watch, buf, sizeof(buf))) > 0)
                for (char *p = buf; p < buf + l; p += sizeof(struct inotify_event) +
                     ((struct inotify_event *) p)->len)
                        n++;
        return n;
}

static void key_press(Fixture *f) {
        struct input_event ev[2] = {
                { .type = EV_KEY, .code = KEY_A, .value = 1 },
                { .type = EV_SYN, .code = SYN_REPORT },
        };

        assert_int_equal(write(f->writer, ev, sizeof(ev)), (ssize_t) sizeof(ev));
}

static bool interactive_is_40(Fixture *f) { return stune_boost(f->root, "interactive") == 40; }
static bool interactive_is_10(Fixture *f) { return stune_boost(f->root, "interactive") == 10; }
static bool interactive_is_5(Fixture *f) { return stune_boost(f->root, "interactive") == 5; }
static bool is_low(Fixture *f) { return f->m->groups.power_state == POWER_LOW; }
static bool is_battery(Fixture *f) { return f->m->groups.power_state == POWER_BATTERY; }
static bool is_ac(Fixture *f) { return f->m->groups.power_state == POWER_AC; }
static bool no_devices(Fixture *f) { return input_source_n_devices(f->m->input) == 0; }
static bool one_device(Fixture *f) { return input_source_n_devices(f->m->input) == 1; }

static void test_input_burst_one_write_each_way(void **state) {
        Fixture *f = *state;
        unsigned long wakeups;

        /* only the keyboard is watched: Devices=keyboard */
        assert_int_equal(input_source_n_devices(f->m->input), 1);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        assert_false(input_source_timer_armed(f->m->input));
        (void) writes_seen(f);
        wakeups = input_source_io_wakeups(f->m->input);

        /* a burst over 250 ms, longer than DurationMs=100 in all; inotify
         * merges identical queued events, so count at each step */
        for (int i = 0; i < 25; i++) {
                key_press(f);
                run_for(f, 10);
                assert_int_equal(stune_boost(f->root, "interactive"), 40);
                assert_true(input_source_timer_armed(f->m->input));
                /* one write up, then none during the burst */
                assert_int_equal(writes_seen(f), i == 0 ? 1 : 0);
        }
        /* the keyboard woke the loop once, at the first press: while the
         * boost is up the timer reads what came */
        assert_int_equal(input_source_io_wakeups(f->m->input) - wakeups, 1);
        assert_true(run_until(f, interactive_is_10));
        /* one write down, and no timer left while idle */
        assert_int_equal(writes_seen(f), 1);
        assert_false(input_source_timer_armed(f->m->input));
        /* idle: nothing more is written */
        run_for(f, 150);
        assert_int_equal(writes_seen(f), 0);
        /* listening again: the next press raises it */
        key_press(f);
        assert_true(run_until(f, interactive_is_40));
}

static void test_input_device_vanishes_and_returns(void **state) {
        Fixture *f = *state;
        char p[4096];

        snprintf(p, sizeof(p), "%s/dev/input/event3", f->root);
        close(f->writer);
        f->writer = -1;
        assert_int_equal(unlink(p), 0);
        assert_true(run_until(f, no_devices));
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_true(run_until(f, one_device));
        f->writer = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        assert_true(f->writer >= 0);
        key_press(f);
        assert_true(run_until(f, interactive_is_40));
        assert_true(run_until(f, interactive_is_10));
}

static void test_power_follows_tree(void **state) {
        Fixture *f = *state;

        assert_int_equal(f->m->groups.power_state, POWER_AC);
        write_file(f->root, "sys/class/power_supply/AC/online", "0\n");
        write_file(f->root, "sys/class/power_supply/BAT0/status", "Discharging\n");
        assert_true(run_until(f, is_battery));
        assert_true(run_until(f, interactive_is_5));
        write_file(f->root, "sys/class/power_supply/BAT0/capacity", "20\n");
        assert_true(run_until(f, is_low));
        assert_int_equal(stune_boost(f->root, "performance"), 10);
        assert_int_equal(stune_boost(f->root, "interactive"), 0);
        write_file(f->root, "sys/class/power_supply/BAT0/capacity", "24\n");
        run_for(f, 50);
        assert_int_equal(f->m->groups.power_state, POWER_LOW);
        write_file(f->root, "sys/class/power_supply/BAT0/capacity", "25\n");
        assert_true(run_until(f, is_battery));
        assert_int_equal(stune_boost(f->root, "performance"), 30);
        /* the battery is removed: no battery is ac */
        {
                char p[4096];

                snprintf(p, sizeof(p), "rm -rf '%s/sys/class/power_supply/BAT0'", f->root);
                assert_int_equal(system(p), 0);
        }
        assert_true(run_until(f, is_ac));
        /* and comes back, discharging and low */
        supply(f->root, "BAT0", "Battery", NULL, "3", "Discharging");
        assert_true(run_until(f, is_low));
}

static void test_manual_mode_ignores_sources(void **state) {
        Fixture *f = *state;

        assert_int_equal(manager_set_mode(f->m, MODE_MANUAL), 0);
        key_press(f);
        run_for(f, 50);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        write_file(f->root, "sys/class/power_supply/AC/online", "0\n");
        write_file(f->root, "sys/class/power_supply/BAT0/status", "Discharging\n");
        run_for(f, 50);
        assert_int_equal(f->m->groups.power_state, POWER_AC);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        /* back to auto: the state the supplies show now */
        assert_int_equal(manager_set_mode(f->m, MODE_AUTO), 0);
        assert_int_equal(f->m->groups.power_state, POWER_BATTERY);
        assert_int_equal(stune_boost(f->root, "interactive"), 5);
        key_press(f);
        assert_true(run_until(f, interactive_is_40));
        /* manual while boosted: the boost drops at once */
        assert_int_equal(manager_set_mode(f->m, MODE_MANUAL), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 5);
}

static void test_reload_moves_input_group(void **state) {
        Fixture *f = *state;

        key_press(f);
        assert_true(run_until(f, interactive_is_40));
        write_file(f->root, "etc/boostd.conf", "[Input]\nGroup=performance\nBoost=90\nDevices=keyboard\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        assert_int_equal(input_source_n_devices(f->m->input), 1);
        key_press(f);
        run_for(f, 20);
        assert_int_equal(stune_boost(f->root, "performance"), 90);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        /* a bad [Input] is rejected, the running configuration stays */
        write_file(f->root, "etc/boostd.conf", "[Input]\nGroup=nope\n");
        assert_true(manager_reload(f->m, NULL) < 0);
        assert_string_equal(f->m->config->input.group, "performance");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_power_reader),
                cmocka_unit_test(test_input_kinds),
                cmocka_unit_test_setup_teardown(test_input_burst_one_write_each_way,
                                                fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_input_device_vanishes_and_returns,
                                                fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_power_follows_tree,
                                                fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_manual_mode_ignores_sources,
                                                fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_reload_moves_input_group,
                                                fixture_setup, fixture_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
