/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The argument checks behind every D-Bus method, on a manager without a
 * bus: each bad input gets its named error and changes nothing. */
#include "tests.h"

#include "bus-names.h"
#include "log.h"
#include "manager.h"

static const char *const classes[] = { "background", "interactive", "performance" };

typedef struct Fixture {
        char *root;
        Manager *m;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));
        ManagerOptions o = { .log_level = LOG_CRIT };
        char *error = NULL;

        f->root = tmpdir_new();
        make_schedtune_tree(f->root, classes, 3);
        mkdirs(f->root, "etc");
        o.root = f->root;
        assert_int_equal(manager_new(&o, &f->m, &error), 0);
        assert_null(error);
        assert_int_equal(manager_start(f->m), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        manager_free(f->m);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static void test_started(void **state) {
        Fixture *f = *state;

        assert_string_equal(backend_name(f->m->backend), "schedtune");
        assert_int_equal(f->m->groups.n, 4);
        assert_int_equal(stune_boost(f->root, "performance"), 50);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
}

static void test_set_get_boost(void **state) {
        Fixture *f = *state;
        unsigned base, eff;

        assert_int_equal(manager_set_boost(f->m, "interactive", 30), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 30);

        assert_int_equal(manager_set_boost(f->m, "interactive", 101), -ERANGE);
        assert_int_equal(manager_set_boost(f->m, "interactive", UINT32_MAX), -ERANGE);
        assert_int_equal(manager_set_boost(f->m, "games", 1), -ENOENT);
        assert_int_equal(manager_set_boost(f->m, "", 1), -ENOENT);
        assert_int_equal(stune_boost(f->root, "interactive"), 30);

        assert_int_equal(manager_get_boost(f->m, "interactive", &base, &eff), 0);
        assert_int_equal(base, 30);
        assert_int_equal(eff, 30);
        assert_int_equal(manager_get_boost(f->m, "nope", &base, &eff), -ENOENT);
        /* a NULL error is allowed */
        assert_int_equal(manager_set_boost(f->m, "nope", 1), -ENOENT);
}

static void test_classify(void **state) {
        Fixture *f = *state;
        pid_t pid = spawn_sleeper();

        assert_int_equal(manager_classify(f->m, pid, "nope"), -ENOENT);
        assert_int_equal(manager_classify(f->m, 0, "performance"), -ESRCH);
        assert_int_equal(manager_classify(f->m, -5, "performance"), -ESRCH);
        assert_int_equal(manager_classify(f->m, dead_pid(), "performance"), -ESRCH);
        assert_int_equal(f->m->state->n_classified, 0);

        assert_int_equal(manager_classify(f->m, pid, "performance"), 0);
        assert_int_equal(read_int(f->root, "dev/stune/performance/cgroup.procs"), pid);
        assert_int_equal(f->m->state->n_classified, 1);
        assert_int_equal(manager_classify(f->m, pid, "root"), 0);
        assert_int_equal(f->m->state->n_classified, 0);
        kill_sleeper(pid);
}

static void test_set_foreground(void **state) {
        Fixture *f = *state;
        pid_t a = spawn_sleeper(), b = spawn_sleeper();

        assert_int_equal(manager_set_foreground(f->m, dead_pid()), -ESRCH);
        assert_int_equal(manager_set_foreground(f->m, 0), -ESRCH);
        assert_int_equal(manager_set_foreground(f->m, a), 0);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/cgroup.procs"), a);
        assert_int_equal(manager_set_foreground(f->m, b), 0);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/cgroup.procs"), b);
        assert_int_equal(read_int(f->root, "dev/stune/cgroup.procs"), a);
        assert_int_equal(placer_foreground(&f->m->placer, "")->id.pid, b);
        kill_sleeper(a);
        kill_sleeper(b);
}

static void test_hold_release(void **state) {
        Fixture *f = *state;
        char reason[HOLD_REASON_MAX + 10];
        uint32_t cookie = 0, c2;
        unsigned base, eff;

        assert_int_equal(manager_hold(f->m, "interactive", 101, 0, "", ":1.1", 1000, &cookie), -ERANGE);
        assert_int_equal(manager_hold(f->m, "nope", 10, 0, "", ":1.1", 1000, &cookie), -ENOENT);
        memset(reason, 'r', sizeof(reason) - 1);
        reason[sizeof(reason) - 1] = '\0';
        assert_int_equal(manager_hold(f->m, "interactive", 10, 0, reason, ":1.1", 1000, &cookie),
                         -EINVAL);
        assert_int_equal(f->m->groups.holds.n, 0);

        assert_int_equal(manager_hold(f->m, "interactive", 70, 0, "test", ":1.1", 1000, &cookie), 0);
        assert_int_not_equal(cookie, 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 70);
        assert_int_equal(manager_get_boost(f->m, "interactive", &base, &eff), 0);
        assert_int_equal(base, 10);
        assert_int_equal(eff, 70);
        /* the cookies are random and distinct */
        assert_int_equal(manager_hold(f->m, "interactive", 20, 0, "", ":1.1", 1000, &c2), 0);
        assert_int_not_equal(cookie, c2);

        /* not the holder, or no such cookie: the same answer */
        assert_int_equal(manager_release(f->m, cookie, ":1.2"), -ENOENT);
        assert_int_equal(manager_release(f->m, cookie ^ 1, ":1.1"), -ENOENT);
        assert_int_equal(stune_boost(f->root, "interactive"), 70);
        assert_int_equal(manager_release(f->m, cookie, ":1.1"), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 20);
        assert_int_equal(manager_release(f->m, c2, ":1.1"), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
}

static void test_too_many_holds(void **state) {
        Fixture *f = *state;
        uint32_t cookie;

        for (unsigned i = 0; i < HOLDS_PER_CLIENT_DEFAULT; i++)
                assert_int_equal(manager_hold(f->m, "background", i, 0, "", ":1.1", 0, &cookie), 0);
        assert_int_equal(manager_hold(f->m, "background", 99, 0, "", ":1.1", 0, &cookie), -EUSERS);
        assert_int_equal(stune_boost(f->root, "background"), HOLDS_PER_CLIENT_DEFAULT - 1);
        /* another client still may */
        assert_int_equal(manager_hold(f->m, "background", 99, 0, "", ":1.2", 0, &cookie), 0);
        assert_int_equal(stune_boost(f->root, "background"), 99);
}

static void test_hold_timeout(void **state) {
        Fixture *f = *state;
        uint32_t cookie;

        assert_int_equal(manager_hold(f->m, "performance", 90, 30, "", ":1.1", 0, &cookie), 0);
        assert_int_equal(stune_boost(f->root, "performance"), 90);
        for (int i = 0; i < 100 && f->m->groups.holds.n > 0; i++)
                assert_true(sd_event_run(f->m->event, 100 * 1000) >= 0);
        assert_int_equal(f->m->groups.holds.n, 0);
        assert_int_equal(stune_boost(f->root, "performance"), 50);
}

static void test_mode(void **state) {
        Fixture *f = *state;

        assert_int_equal(mode_from_string("turbo"), -EINVAL);
        assert_int_equal(mode_from_string(""), -EINVAL);
        assert_int_equal(f->m->mode, MODE_AUTO);
        assert_int_equal(manager_set_mode(f->m, MODE_MANUAL), 0);
        assert_int_equal(f->m->mode, MODE_MANUAL);
        assert_true(f->m->state->manual);
}

static void test_power_state(void **state) {
        Fixture *f = *state;

        assert_int_equal(manager_set_power_state(f->m, POWER_BATTERY), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 5);
        assert_int_equal(stune_boost(f->root, "performance"), 30);
        assert_int_equal(manager_set_power_state(f->m, POWER_LOW), 0);
        assert_int_equal(stune_boost(f->root, "performance"), 10);
        assert_int_equal(manager_set_power_state(f->m, _POWER_STATE_MAX), -EINVAL);
        assert_int_equal(manager_set_power_state(f->m, POWER_AC), 0);
        assert_int_equal(stune_boost(f->root, "performance"), 50);
}

static void test_input_boost(void **state) {
        Fixture *f = *state;
        unsigned base, eff;

        assert_int_equal(groups_set_input_boost(&f->m->groups, "interactive", 60), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 60);
        assert_int_equal(manager_get_boost(f->m, "interactive", &base, &eff), 0);
        assert_int_equal(base, 10);
        assert_int_equal(eff, 60);
        assert_int_equal(groups_set_input_boost(&f->m->groups, "interactive", 101), -ERANGE);
        assert_int_equal(groups_set_input_boost(&f->m->groups, "nope", 1), -ENOENT);
        assert_int_equal(groups_set_input_boost(&f->m->groups, "interactive", 0), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
}

static void test_place_by_rules(void **state) {
        Fixture *f = *state;
        pid_t a = spawn_sleeper(), b = spawn_sleeper();

        /* the sleepers run as this test's user (their comm differs under
         * valgrind) */
        write_file(f->root, "etc/boostd.conf", "[Rule:me]\nUser=%u\nClass=background\n",
                   (unsigned) getuid());
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, a, NULL), 0);
        assert_int_equal(read_int(f->root, "dev/stune/background/cgroup.procs"), a);
        /* an explicit Classify() keeps its place */
        assert_int_equal(manager_classify(f->m, b, "performance"), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, b, NULL), 0);
        assert_int_equal(read_int(f->root, "dev/stune/performance/cgroup.procs"), b);
        assert_int_equal(placer_place_auto(&f->m->placer, dead_pid(), NULL), -ESRCH);
        kill_sleeper(a);
        kill_sleeper(b);
}

static char unit_calls[8][256];
static size_t n_unit_calls;

static int record_attach_unit(Backend *b, const char *group, const char *cgroup) {
        if (n_unit_calls < 8)
                snprintf(unit_calls[n_unit_calls++], sizeof(unit_calls[0]), "%s %s", group, cgroup);
        return 0;
}

/* On a backend with boosts in place, each placement gives the process's
 * unit (the system manager's) the class of the first rule naming it by
 * Unit=/Slice= alone, whatever the process's own class. */
static void test_place_unit_in_place(void **state) {
        Fixture *f = *state;
        BackendVTable vt = *f->m->backend->vt;
        const BackendVTable *saved = f->m->backend->vt;
        pid_t a = spawn_sleeper();

        vt.attach_unit = record_attach_unit;
        f->m->backend->vt = &vt;
        n_unit_calls = 0;
        write_file(f->root, "etc/boostd.conf",
                   "[Rule:me]\nUser=%u\nUnit=none.service\nClass=interactive\n"
                   "[Rule:svc]\nUnit=svc.service\nClass=performance\n"
                   "[Rule:all]\nUser=%u\nClass=background\n", (unsigned) getuid(), (unsigned) getuid());
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, a, "/system.slice/svc.service/sub"), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, a, "/system.slice/other.service"), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, a, "/user.slice/user-1.slice/user@1.service/svc.service"), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, a, "/system.slice"), 0);
        assert_int_equal(n_unit_calls, 2);
        assert_string_equal(unit_calls[0], "performance /system.slice/svc.service");
        assert_string_equal(unit_calls[1], "root /system.slice/other.service");
        /* the process itself went where its own rule says */
        assert_int_equal(read_int(f->root, "dev/stune/background/cgroup.procs"), a);
        /* a unit inside a delegated one is its delegatee's to name */
        assert_int_equal(placer_place_auto(&f->m->placer, a, "/system.slice/ci.service/svc.service"), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, a, "/machine.slice/c.scope/system.slice/svc.service"), 0);
        assert_int_equal(n_unit_calls, 2);
        f->m->backend->vt = saved;
        kill_sleeper(a);
}

static void test_reload(void **state) {
        Fixture *f = *state;
        char msg[4096], *error = NULL;

        assert_int_equal(manager_set_boost(f->m, "background", 8), 0);
        write_file(f->root, "etc/boostd.conf", "[Class:interactive]\nBoostAC=15\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(stune_boost(f->root, "interactive"), 15);
        assert_int_equal(stune_boost(f->root, "background"), 8);         /* API value kept */

        write_file(f->root, "etc/boostd.conf", "[Class:interactive]\nBoostAC=15\nBoostBattery=x\n");
        snprintf(msg, sizeof(msg), "%s/etc/boostd.conf:3: BoostBattery=x: not a number", f->root);
        assert_int_equal(manager_reload(f->m, &error), -EINVAL);
        assert_string_equal(error, msg);
        free(error);
        assert_int_equal(stune_boost(f->root, "interactive"), 15);
        assert_int_equal(f->m->config->classes[2].boost[POWER_AC], 15);
}

static void test_stop_restores_and_restart(void **state) {
        Fixture *f = *state;
        ManagerOptions o = { .root = f->root, .log_level = LOG_CRIT };
        char *error = NULL;
        pid_t pid = spawn_sleeper();

        pid_t fg = spawn_sleeper();

        assert_int_equal(manager_set_boost(f->m, "performance", 77), 0);
        assert_int_equal(manager_classify(f->m, pid, "background"), 0);
        assert_int_equal(manager_set_foreground(f->m, fg), 0);
        assert_int_equal(manager_stop(f->m), 0);
        assert_int_equal(stune_boost(f->root, "performance"), 0);
        /* both went back to root */
        assert_true(file_has_pid(f->root, "dev/stune/cgroup.procs", fg));
        assert_true(file_has_pid(f->root, "dev/stune/cgroup.procs", pid));
        assert_false(file_has_pid(f->root, "dev/stune/background/cgroup.procs", pid));
        assert_int_equal(f->m->state->n_placed, 0);
        f->m = manager_free(f->m);

        assert_int_equal(manager_new(&o, &f->m, &error), 0);
        assert_int_equal(manager_start(f->m), 0);
        assert_int_equal(stune_boost(f->root, "performance"), 77);
        assert_int_equal(read_int(f->root, "dev/stune/background/cgroup.procs"), pid);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/cgroup.procs"), fg);
        assert_int_equal(placer_foreground(&f->m->placer, "")->id.pid, fg);
        kill_sleeper(pid);
        kill_sleeper(fg);
}

static bool group_exists(const char *root, const char *group) {
        char p[4096];

        snprintf(p, sizeof(p), "%s/dev/stune/%s", root, group);
        return access(p, F_OK) == 0;
}

/* A group boostd made goes when its class does (reload) and at stop: its
 * placed processes back to root first; one with a process boostd did not
 * place stays until it is empty. Groups that were there before stay.
 * Renaming a class many times leaves no trail (the kernel's group limit
 * would otherwise be reached). */
static void test_made_groups_are_removed(void **state) {
        Fixture *f = *state;
        pid_t a = spawn_sleeper(), b = spawn_sleeper();
        char conf[64];

        for (int i = 0; i < 20; i++) {
                snprintf(conf, sizeof(conf), "[Class:renamed%d]\nBoost=5\n", i);
                write_file(f->root, "etc/boostd.conf", "%s", conf);
                assert_int_equal(manager_reload(f->m, NULL), 0);
                snprintf(conf, sizeof(conf), "renamed%d", i);
                assert_true(group_exists(f->root, conf));
                if (i > 0) {
                        snprintf(conf, sizeof(conf), "renamed%d", i - 1);
                        assert_false(group_exists(f->root, conf));
                }
        }

        write_file(f->root, "etc/boostd.conf", "[Class:games]\nBoost=70\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(stune_boost(f->root, "games"), 70);
        assert_int_equal(manager_classify(f->m, a, "games"), 0);
        write_file(f->root, "dev/stune/games/cgroup.procs", "%d\n%d\n", a, b);   /* b by hand */
        write_file(f->root, "etc/boostd.conf", "\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(groups_find(&f->m->groups, "games"), -ENOENT);
        assert_true(file_has_pid(f->root, "dev/stune/cgroup.procs", a));
        /* b keeps the group, at boost 0 */
        assert_true(group_exists(f->root, "games"));
        assert_true(file_has_pid(f->root, "dev/stune/games/cgroup.procs", b));
        assert_int_equal(stune_boost(f->root, "games"), 0);
        /* b leaves; the stop removes the group, and only that one */
        write_file(f->root, "dev/stune/games/cgroup.procs", "%s", "");
        assert_int_equal(manager_stop(f->m), 0);
        assert_false(group_exists(f->root, "games"));
        assert_true(group_exists(f->root, "performance"));
        assert_int_equal(stune_boost(f->root, "performance"), 0);
        kill_sleeper(a);
        kill_sleeper(b);
}

static void test_invalid_config_at_start(void **state) {
        char *root = tmpdir_new(), *error = NULL, want[4096];
        ManagerOptions o = { .root = root, .log_level = LOG_CRIT };
        Manager *m = NULL;

        (void) state;
        mkdirs(root, "etc/boostd.conf.d");
        write_file(root, "etc/boostd.conf.d/50-x.conf", "[Rule:r]\nUser=1000\nClass=ghost\n");
        assert_int_equal(manager_new(&o, &m, &error), -ENOENT);
        assert_null(m);
        snprintf(want, sizeof(want), "%s/etc/boostd.conf.d/50-x.conf:3: rule 'r' names unknown class 'ghost'",
                 root);
        assert_string_equal(error, want);
        free(error);
        tmpdir_free(root);
}

/* The log level belongs to each manager (and its backend), not to the
 * process: LogLevel= of one does not change another's. */
static void test_log_level_per_manager(void **state) {
        char *r1 = tmpdir_new(), *r2 = tmpdir_new(), *error = NULL;
        ManagerOptions o1 = { .root = r1, .log_level = LOG_CRIT }, o2 = { .root = r2, .log_level = LOG_CRIT };
        Manager *m1 = NULL, *m2 = NULL;

        (void) state;
        make_schedtune_tree(r1, classes, 3);
        make_schedtune_tree(r2, classes, 3);
        mkdirs(r1, "etc");
        mkdirs(r2, "etc");
        write_file(r1, "etc/boostd.conf", "[Daemon]\nLogLevel=debug\n");
        assert_int_equal(manager_new(&o1, &m1, &error), 0);
        assert_int_equal(manager_new(&o2, &m2, &error), 0);
        assert_int_equal(m1->log.max_level, LOG_DEBUG);
        assert_int_equal(m2->log.max_level, LOG_CRIT);
        assert_int_equal(manager_start(m1), 0);
        assert_ptr_equal(m1->backend->log, &m1->log);

        write_file(r1, "etc/boostd.conf", "[Daemon]\nLogLevel=err\n");
        assert_int_equal(manager_reload(m1, NULL), 0);
        assert_int_equal(m1->log.max_level, LOG_ERR);
        assert_int_equal(m2->log.max_level, LOG_CRIT);

        manager_free(m1);
        manager_free(m2);
        tmpdir_free(r1);
        tmpdir_free(r2);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_started, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_get_boost, setup, teardown),
                cmocka_unit_test_setup_teardown(test_classify, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_foreground, setup, teardown),
                cmocka_unit_test_setup_teardown(test_hold_release, setup, teardown),
                cmocka_unit_test_setup_teardown(test_too_many_holds, setup, teardown),
                cmocka_unit_test_setup_teardown(test_hold_timeout, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mode, setup, teardown),
                cmocka_unit_test_setup_teardown(test_power_state, setup, teardown),
                cmocka_unit_test_setup_teardown(test_input_boost, setup, teardown),
                cmocka_unit_test_setup_teardown(test_place_by_rules, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reload, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stop_restores_and_restart, setup, teardown),
                cmocka_unit_test_setup_teardown(test_made_groups_are_removed, setup, teardown),
                cmocka_unit_test(test_invalid_config_at_start),
                cmocka_unit_test(test_log_level_per_manager),
                cmocka_unit_test_setup_teardown(test_place_unit_in_place, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
