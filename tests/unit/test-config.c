/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Configuration parsing: good files, and each kind of bad line with the
 * exact message. */
#include "tests.h"

#include "config.h"
#include "log.h"

static int setup(void **state) {
        *state = tmpdir_new();
        return 0;
}

static int teardown(void **state) {
        tmpdir_free(*state);
        return 0;
}

static int load_one(const char *dir, const char *text, Config **ret, char **ret_error) {
        write_file(dir, "test.conf", "%s", text);
        char path[4096];

        snprintf(path, sizeof(path), "%s/test.conf", dir);
        return config_load(path, false, NULL, ret, ret_error);
}

static void test_defaults(void **state) {
        Config *c = NULL;
        char *error = NULL;

        assert_int_equal(config_load(NULL, true, NULL, &c, &error), 0);
        assert_null(error);
        assert_string_equal(c->backend, "auto");
        assert_string_equal(c->mount_point, "/dev/stune");
        assert_int_equal(c->n_classes, 4);
        assert_string_equal(c->classes[0].name, "root");
        assert_int_equal(config_find_class(c, "performance"), 3);
        assert_int_equal(c->classes[3].boost[POWER_AC], 50);
        assert_int_equal(c->default_class_index, 0);
        assert_int_equal(c->max_holds_per_client, 16);
        (void) state;
        config_free(c);
}

static void test_shipped_config(void **state) {
        Config *c = NULL;
        char *error = NULL;
        int r;

        r = config_load(SOURCE_ROOT "/conf/boostd.conf", false, NULL, &c, &error);
        if (error)
                fprintf(stderr, "%s\n", error);
        assert_int_equal(r, 0);
        assert_int_equal(c->n_rules, 2);
        assert_string_equal(c->rules[0].name, "indexers");
        assert_int_equal(c->rules[0].class_index, config_find_class(c, "background"));
        assert_int_equal(c->log_level, LOG_INFO);
        (void) state;
        config_free(c);
}

static void test_good_file(void **state) {
        Config *c = NULL;
        char *error = NULL;

        assert_int_equal(load_one(*state,
                                  "# comment\n"
                                  "; another\n"
                                  "[Daemon]\n"
                                  "Backend=uclamp\n"
                                  "MountPoint=/sys/fs/cgroup/stune\n"
                                  "UclampGroup=/sys/fs/cgroup/boostd.slice\n"
                                  "LogLevel=debug\n"
                                  "DefaultClass=background\n"
                                  "MaxHoldsPerClient=4\n"
                                  "RestoreOnStop=found\n"
                                  "\n"
                                  "[Class:games]\n"
                                  "BoostAC=80\n"
                                  "BoostBattery=40\n"
                                  "BoostLowBattery=0\n"
                                  "[Class:interactive]\n"
                                  "Boost=15\n"
                                  "[Rule:steam]\n"
                                  "Unit=app-steam*.scope\n"
                                  "User=1000\n"
                                  "Class=games\n"
                                  "Pin=yes\n"
                                  "[Rule:indexer]\n"
                                  "Comm=tracker-miner*\n"
                                  "Class=background\n",
                                  &c, &error), 0);
        assert_null(error);
        assert_string_equal(c->backend, "uclamp");
        assert_string_equal(c->mount_point, "/sys/fs/cgroup/stune");
        assert_string_equal(c->uclamp_group, "/sys/fs/cgroup/boostd.slice");
        assert_int_equal(c->log_level, LOG_DEBUG);
        assert_int_equal(c->default_class_index, 1);
        assert_int_equal(c->max_holds_per_client, 4);
        assert_true(c->restore_found);
        assert_int_equal(c->n_classes, 5);
        assert_string_equal(c->classes[4].name, "games");
        assert_int_equal(c->classes[4].boost[POWER_AC], 80);
        assert_int_equal(c->classes[4].boost[POWER_BATTERY], 40);
        assert_int_equal(c->classes[2].boost[POWER_LOW], 15);
        assert_int_equal(c->n_rules, 2);
        assert_string_equal(c->rules[0].unit, "app-steam*.scope");
        assert_int_equal(c->rules[0].class_index, 4);
        assert_true(c->rules[0].pin);
        assert_false(c->rules[1].pin);
        config_free(c);
}

/* "#" and ";" after a blank end a value alike; elsewhere they are part
 * of it. */
static void test_inline_comments_alike(void **state) {
        const char *dir = *state;
        char path[4096], *error = NULL;
        Config *c = NULL;

        snprintf(path, sizeof(path), "%s/boostd.conf", dir);
        write_file(dir, "boostd.conf",
                   "[Class:games]\nBoostAC=30 # hash\nBoostBattery=20\t; semicolon\n"
                   "[Rule:a]\nComm=x#y\nClass=games # the games\n");
        assert_int_equal(config_load(path, false, NULL, &c, &error), 0);
        assert_null(error);
        assert_int_equal(c->classes[config_find_class(c, "games")].boost[POWER_AC], 30);
        assert_int_equal(c->classes[config_find_class(c, "games")].boost[POWER_BATTERY], 20);
        assert_string_equal(c->rules[0].comm, "x#y");
        assert_int_equal(c->rules[0].class_index, config_find_class(c, "games"));
        config_free(c);
}

static void test_dropins_in_order(void **state) {
        const char *dir = *state;
        char main_file[4096], dropins[4096];
        Config *c = NULL;
        char *error = NULL;

        snprintf(main_file, sizeof(main_file), "%s/boostd.conf", dir);
        snprintf(dropins, sizeof(dropins), "%s/boostd.conf.d", dir);
        write_file(dir, "boostd.conf", "[Class:games]\nBoost=10\n[Rule:a]\nComm=a\nClass=games\n");
        mkdirs(dir, "boostd.conf.d");
        write_file(dir, "boostd.conf.d/20-b.conf", "[Class:games]\nBoostAC=30\n");
        write_file(dir, "boostd.conf.d/10-a.conf", "[Class:games]\nBoostAC=20\n[Rule:b]\nComm=b\nClass=root\n");
        write_file(dir, "boostd.conf.d/ignored.txt", "garbage\n");
        assert_int_equal(config_load(main_file, false, dropins, &c, &error), 0);
        assert_null(error);
        /* 20-b.conf is read last and amends the class */
        assert_int_equal(c->classes[config_find_class(c, "games")].boost[POWER_AC], 30);
        assert_int_equal(c->classes[config_find_class(c, "games")].boost[POWER_BATTERY], 10);
        assert_int_equal(c->n_rules, 2);
        assert_string_equal(c->rules[1].name, "b");
        config_free(c);

        /* a missing optional main file leaves the defaults */
        snprintf(main_file, sizeof(main_file), "%s/nonexistent.conf", dir);
        assert_int_equal(config_load(main_file, true, NULL, &c, &error), 0);
        config_free(c);
        assert_int_equal(config_load(main_file, false, NULL, &c, &error), -ENOENT);
        assert_non_null(strstr(error, "nonexistent.conf: cannot open"));
        free(error);
}

typedef struct BadCase {
        const char *text;
        int error;
        const char *message;    /* after "FILE:" */
} BadCase;

static const BadCase bad_cases[] = {
        { "[Foo]\nA=1\n", -EINVAL, "1: unknown section [Foo]" },
        { "[Daemon]\nFrobnicate=1\n", -EINVAL, "2: unknown key 'Frobnicate' in section [Daemon]" },
        { "[Class:games]\nBoostAC=101\n", -ERANGE, "2: BoostAC=101: value out of range 0..100" },
        { "[Class:games]\nBoostBattery=-1\n", -EINVAL, "2: BoostBattery=-1: not a number" },
        { "[Class:games]\nBoost=abc\n", -EINVAL, "2: Boost=abc: not a number" },
        { "[Class:games]\nBoostLow=1\n", -EINVAL, "2: unknown key 'BoostLow' in section [Class:games]" },
        { "[Class:games]\nBoost=1\n\n[Class:games]\nBoost=2\n", -EEXIST, "4: duplicate class 'games'" },
        { "[Rule:a]\nComm=x\nClass=a\n[Rule:a]\n", -EEXIST, "4: duplicate rule 'a'" },
        { "[Class:Games]\n", -EINVAL, "1: invalid class name 'Games' (1-31 characters of a-z, 0-9, '_', '-')" },
        { "[Rule:x]\nComm=foo\nClass=nope\n", -ENOENT, "3: rule 'x' names unknown class 'nope'" },
        { "[Rule:x]\nClass=root\n", -EINVAL, "1: rule 'x' has no match key (Unit=, Slice=, Comm=, Exe= or User=)" },
        { "[Rule:x]\nUnit=a.service\nManager=session\nClass=root\n", -EINVAL, "3: Manager=session: expected system or user" },
        { "[Rule:x]\nComm=foo\n", -EINVAL, "1: rule 'x' has no Class=" },
        { "[Rule:x]\nComm=foo\nClass=root\nPin=maybe\n", -EINVAL, "4: Pin=maybe: expected yes or no" },
        { "[Rule:x]\nComm=foo\nClass=root\nPin=\n", -EINVAL, "4: Pin=: expected yes or no" },
        { "[Rule:x]\nPin=yes\nClass=root\n", -EINVAL,
          "1: rule 'x' has no match key (Unit=, Slice=, Comm=, Exe= or User=)" },
        { "[Rule:x]\nExe=bin/foo\nClass=root\n", -EINVAL, "2: Exe=bin/foo: not an absolute path or glob" },
        { "[Rule:x]\nComm=averyveryverylongname\nClass=root\n", -EINVAL,
          "2: Comm=averyveryverylongname: longer than the kernel's 15 characters, can never match" },
        { "[Daemon]\nBackend=turbo\n", -EINVAL, "2: Backend=turbo: expected auto, schedtune, schedtune2, uclamp or none" },
        { "[Daemon]\nMountPoint=dev/stune\n", -EINVAL, "2: MountPoint=dev/stune: not a normalized absolute path" },
        { "[Daemon]\nMountPoint=/dev/stune/\n", -EINVAL, "2: MountPoint=/dev/stune/: not a normalized absolute path" },
        { "[Daemon]\nMountPoint=/etc\n", -EINVAL, "2: MountPoint=/etc: a system directory, not a place to mount the hierarchy" },
        { "[Daemon]\nMountPoint=/etc/stune\n", -EINVAL, "2: MountPoint=/etc/stune: a system directory, not a place to mount the hierarchy" },
        { "[Daemon]\nMountPoint=/dev/shm/x\n", -EINVAL, "2: MountPoint=/dev/shm/x: a system directory, not a place to mount the hierarchy" },
        { "[Rule:x]\nComm=a\nManager=user\nClass=root\n", -EINVAL, "1: rule 'x' has Manager=user but no Unit= or Slice=" },
        { "[Daemon]\nMountPoint=/\n", -EINVAL, "2: MountPoint=/: not a normalized absolute path" },
        { "[Daemon]\nMountPoint=/sys/fs/cgroup\n", -EINVAL, "2: MountPoint=/sys/fs/cgroup: a system directory, not a place to mount the hierarchy" },
        { "[Daemon]\nMountPoint=/proc/x\n", -EINVAL, "2: MountPoint=/proc/x: a system directory, not a place to mount the hierarchy" },
        { "[Daemon]\nUclampGroup=boostd\n", -EINVAL, "2: UclampGroup=boostd: not an absolute path" },
        { "[Daemon]\n\nDefaultClass=nope\n", -ENOENT, "3: DefaultClass=nope: unknown class" },
        { "[Input]\nGroup=nope\n", -ENOENT, "2: Group=nope: unknown class" },
        { "[Launch]\nBoost=101\n", -ERANGE, "2: Boost=101: value out of range 0..100" },
        { "[Launch]\nDurationMs=0\n", -ERANGE, "2: DurationMs=0: value out of range 1..60000" },
        { "[Launch]\nDelay=1\n", -EINVAL, "2: unknown key 'Delay' in section [Launch]" },
        { "[Sessions]\nProportionalOver=fast\n", -EINVAL, "2: ProportionalOver=fast: not a number" },
        { "[Sessions]\nIntegral=2\n", -ERANGE, "2: Integral=2: value out of range 0..1" },
        { "[Sessions]\nHigh=2000\n", -ERANGE, "2: High=2000: value out of range 0..1024" },
        { "[Sessions]\nDeadline=1\n", -EINVAL, "2: unknown key 'Deadline' in section [Sessions]" },
        { "[Sessions]\nActuator=cpufreq\n", -EINVAL,
          "2: Actuator=cpufreq: expected auto, uclamp or schedtune" },
        { "[Sessions]\nLow=50\n\nHigh=40\n", -EINVAL,
          "4: [Sessions] needs Low <= Initial <= High, got 50, 100, 40" },
        { "[Daemon]\nLogLevel=loud\n", -EINVAL, "2: LogLevel=loud: expected err, warning, notice, info or debug" },
        { "[Daemon]\nMaxHoldsPerClient=0\n", -ERANGE, "2: MaxHoldsPerClient=0: value out of range 1..1024" },
        { "[Daemon]\nRestoreOnStop=maybe\n", -EINVAL, "2: RestoreOnStop=maybe: expected zero or found" },
        { "[Daemon]\nBackend=\n", -EINVAL, "2: Backend=: expected auto, schedtune, schedtune2, uclamp or none" },
        { "Backend=none\n", -EINVAL, "1: key 'Backend' outside of any section" },
        { "[Daemon]\nthis is not a key\n", -EBADMSG, "2: syntax error: expected [Section], Key=Value or a comment" },
        { "[Rule:x]\nComm=foo\nUser=no-such-user-boostd\nClass=root\n", -ENOENT,
          "3: User=no-such-user-boostd: no such user" },
        /* an unclosed section header, at its own line */
        { "[Daemon]\nBackend=auto\n[Rule:x\nComm=foo\n", -EBADMSG,
          "3: unclosed section header: expected ']'" },
        /* inih would take these as more of Class='s value */
        { "[Rule:x]\nComm=foo\nClass=performance\n  background\n", -EINVAL,
          "4: indented line: continuation lines are not supported" },
        { "[Rule:x]\nComm=foo\n\tClass=performance\n", -EINVAL,
          "3: indented line: continuation lines are not supported" },
        /* indented comments and blank lines are read as such: the only error
         * is the missing Class= */
        { "[Rule:x]\n  # a comment\n\t; another\n   \nComm=foo\n", -EINVAL,
          "1: rule 'x' has no Class=" },
        /* a line inih would read in two pieces */
        { "[Rule:x]\nComm=foo\nClass=performance\n# "
          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
          "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
          "xxxxxxxxxxxxxxxxxxxx\nClass=root\n", -E2BIG, "4: line longer than 198 bytes" },
        { "[Class:c1]\n[Class:c2]\n[Class:c3]\n[Class:c4]\n[Class:c5]\n[Class:c6]\n[Class:c7]\n"
          "[Class:c8]\n[Class:c9]\n[Class:c10]\n[Class:c11]\n[Class:c12]\n[Class:c13]\n",
          -ENOSPC, "13: too many classes: the kernel allows 16 groups counting root" },
        /* the pool groups keep 5 of the 16: 3 built-in + 8 is one too many */
        { "[Class:c1]\n[Class:c2]\n[Class:c3]\n[Class:c4]\n[Class:c5]\n[Class:c6]\n[Class:c7]\n"
          "[Sessions]\nActuator=schedtune\n[Class:c8]\n",
          -ENOSPC, "9: Actuator=schedtune keeps 5 of the kernel's 16 groups for the pool groups: "
                   "at most 10 classes besides root, and there are 11" },
};

static void test_bad_lines(void **state) {
        const char *dir = *state;

        for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
                char expected[1024];
                Config *c = NULL;
                char *error = NULL;
                int r;

                r = load_one(dir, bad_cases[i].text, &c, &error);
                snprintf(expected, sizeof(expected), "%s/test.conf:%s", dir, bad_cases[i].message);
                if (!error || strcmp(error, expected) != 0)
                        fprintf(stderr, "case %zu: got '%s', want '%s'\n", i, error, expected);
                assert_non_null(error);
                assert_string_equal(error, expected);
                assert_int_equal(r, bad_cases[i].error);
                assert_null(c);
                free(error);
        }
}

static void test_sessions_section(void **state) {
        const char *dir = *state;
        Config *c = NULL;
        char *error = NULL;

        assert_int_equal(load_one(dir, "[Sessions]\nProportionalOver=1.5\nProportionalUnder=1\n"
                                  "DerivativeOver=0\nIntegralLow=-30\nLow=20\nHigh=512\n"
                                  "Initial=64\nStaleTargets=5\nActuator=schedtune\n", &c, &error), 0);
        assert_null(error);
        assert_int_equal(c->hints.actuator, HINT_ACTUATOR_SCHEDTUNE);
        assert_true(c->hints.p_over == 1.5 && c->hints.p_under == 1.0);
        assert_true(c->hints.d_over == 0.0 && c->hints.i_gain == 0.001);
        assert_int_equal(c->hints.i_low, -30);
        assert_int_equal(c->hints.i_high, 512);
        assert_int_equal(c->hints.low, 20);
        assert_int_equal(c->hints.high, 512);
        assert_int_equal(c->hints.initial, 64);
        assert_int_equal(c->hints.stale_targets, 5);
        config_free(c);
        assert_int_equal(load_one(dir, "[Sessions]\nActuator=uclamp\n", &c, &error), 0);
        assert_int_equal(c->hints.actuator, HINT_ACTUATOR_UCLAMP);
        /* no [Launch]: off */
        assert_int_equal(c->launch.boost, 0);
        assert_int_equal(c->launch.duration_ms, 5000);
        config_free(c);
}

static void test_twelve_classes_fit(void **state) {
        Config *c = NULL;
        char *error = NULL;

        /* root + 3 built-in + 12 = 16 groups: the kernel's limit, allowed */
        assert_int_equal(load_one(*state,
                                  "[Class:c1]\n[Class:c2]\n[Class:c3]\n[Class:c4]\n[Class:c5]\n"
                                  "[Class:c6]\n[Class:c7]\n[Class:c8]\n[Class:c9]\n[Class:c10]\n"
                                  "[Class:c11]\n[Class:c12]\n", &c, &error), 0);
        assert_int_equal(c->n_classes, GROUPS_MAX);
        config_free(c);
        /* with Actuator=schedtune, 3 built-in + 7 leave the pool its 5 */
        assert_int_equal(load_one(*state,
                                  "[Sessions]\nActuator=schedtune\n[Class:c1]\n[Class:c2]\n[Class:c3]\n"
                                  "[Class:c4]\n[Class:c5]\n[Class:c6]\n[Class:c7]\n", &c, &error), 0);
        assert_int_equal(c->n_classes + HINT_POOL_GROUPS, GROUPS_MAX);
        config_free(c);
}

static void test_power_state_names(void **state) {
        (void) state;
        assert_string_equal(power_state_to_string(POWER_AC), "ac");
        assert_string_equal(power_state_to_string(POWER_BATTERY), "battery");
        assert_string_equal(power_state_to_string(POWER_LOW), "low");
        assert_null(power_state_to_string(_POWER_STATE_MAX));
        assert_int_equal(power_state_from_string("low"), POWER_LOW);
        assert_int_equal(power_state_from_string("mains"), _POWER_STATE_INVALID);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),
                cmocka_unit_test(test_shipped_config),
                cmocka_unit_test(test_power_state_names),
                cmocka_unit_test_setup_teardown(test_good_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dropins_in_order, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inline_comments_alike, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_lines, setup, teardown),
                cmocka_unit_test_setup_teardown(test_sessions_section, setup, teardown),
                cmocka_unit_test_setup_teardown(test_twelve_classes_fit, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
