/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rule matching: unit, slice, comm, exe, user; first match wins. */
#include "tests.h"

#include "rules.h"

static Config *load(const char *text) {
        char *dir = tmpdir_new(), path[4096], *error = NULL;
        Config *c = NULL;

        write_file(dir, "r.conf", "%s", text);
        snprintf(path, sizeof(path), "%s/r.conf", dir);
        if (config_load(path, false, NULL, &c, &error) < 0)
                fail_msg("config: %s", error);
        tmpdir_free(dir);
        return c;
}

static const char rules_text[] =
        "[Class:games]\nBoost=70\n"
        "[Rule:pinned-indexer]\nComm=tracker-miner*\nClass=background\n"
        "[Rule:steam]\nUnit=app-steam-*.scope\nManager=user\nClass=games\n"
        "[Rule:builds]\nSlice=build.slice\nClass=background\n"
        "[Rule:blender]\nExe=/usr/bin/blender\nClass=performance\n"
        "[Rule:nobody-editor]\nComm=vim\nUser=nobody\nClass=interactive\n"
        "[Rule:uid-editor]\nComm=emacs\nUser=1001\nClass=interactive\n";

static void test_unit_and_scope(void **state) {
        Config *c = load(rules_text);
        char buf[256];
        ProcessInfo p = {
                .comm = "steam",
                .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-steam-1234.scope",
                .uid = 1000,
        };

        (void) state;
        assert_string_equal(cgroup_path_unit(p.cgroup, buf, sizeof(buf)), "app-steam-1234.scope");
        assert_string_equal(cgroup_path_unit("/system.slice/cron.service", buf, sizeof(buf)), "cron.service");
        assert_null(cgroup_path_unit("/user.slice", buf, sizeof(buf)));
        assert_null(cgroup_path_unit(NULL, buf, sizeof(buf)));

        assert_int_equal(rules_find(c, &p), 1);
        assert_int_equal(rules_classify(c, &p), config_find_class(c, "games"));
        p.cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1.scope";
        assert_int_equal(rules_find(c, &p), -ENOENT);
        assert_int_equal(rules_classify(c, &p), c->default_class_index);
        config_free(c);
}

/* Unit= and Slice= name the system manager's units unless Manager=user:
 * a user cannot name a unit of their own manager after a boosted system
 * service, and a system rule sees a user's whole manager as user@UID.service. */
static void test_manager_of_units(void **state) {
        Config *c = load("[Rule:sys]\nUnit=apt-daily*.service\nClass=background\n"
                         "[Rule:usr]\nUnit=apt-daily*.service\nManager=user\nClass=performance\n"
                         "[Rule:userslice]\nSlice=app.slice\nClass=interactive\n"
                         "[Rule:usermgr]\nUnit=user@1000.service\nSlice=user-1000.slice\nClass=performance\n");
        Config *d = load("[Rule:userslice]\nSlice=app.slice\nManager=user\nClass=interactive\n");
        ProcessInfo sys = { .comm = "apt", .cgroup = "/system.slice/apt-daily.service" };
        ProcessInfo usr = { .comm = "apt", .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                                     "apt-daily-fake.service" };
        ProcessInfo app = { .comm = "x", .cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                                   "app-x.scope" };
        ProcessInfo sysapp = { .comm = "x", .cgroup = "/system.slice/app.slice/x.service" };

        (void) state;
        assert_int_equal(rules_find(c, &sys), 0);
        assert_int_equal(rules_find(c, &usr), 1);       /* not "sys" */
        /* app.slice of a user's manager is not a system slice ... */
        assert_int_equal(rules_find(c, &app), 3);
        assert_int_equal(rules_find(c, &sysapp), 2);
        /* ... but it is with Manager=user, where system paths never match */
        assert_int_equal(rules_find(d, &app), 0);
        assert_int_equal(rules_find(d, &sysapp), -ENOENT);
        config_free(c);
        config_free(d);
}

static void test_slice_any_level(void **state) {
        Config *c = load(rules_text);
        ProcessInfo p = { .comm = "cc1", .cgroup = "/build.slice/job-7.service", .uid = 0 };

        (void) state;
        assert_int_equal(rules_classify(c, &p), config_find_class(c, "background"));
        p.cgroup = "/system.slice/build.service";
        assert_int_equal(rules_find(c, &p), -ENOENT);
        p.cgroup = NULL;
        assert_int_equal(rules_find(c, &p), -ENOENT);
        config_free(c);
}

/* The class of a whole unit (boosts in place): the first rule naming it
 * by Unit=/Slice= alone, the system manager's. */
static void test_find_unit(void **state) {
        Config *c = load("[Rule:editor]\nUnit=ed.service\nComm=vim\nClass=interactive\n"
                         "[Rule:ed]\nUnit=ed.service\nClass=performance\n"
                         "[Rule:builds]\nSlice=build.slice\nClass=background\n"
                         "[Rule:mine]\nUnit=ed.service\nManager=user\nClass=interactive\n"
                         "[Rule:users]\nUser=1000\nClass=background\n");

        (void) state;
        assert_int_equal(rules_find_unit(c, "/system.slice/ed.service"), 1);
        assert_int_equal(rules_find_unit(c, "/build.slice/job-7.service"), 2);
        assert_int_equal(rules_find_unit(c, "/system.slice/other.service"), -ENOENT);
        /* a user's manager's unit of that name is not the system's */
        assert_int_equal(rules_find_unit(c, "/user.slice/user-1000.slice/user@1000.service/app.slice/ed.service"),
                         -ENOENT);
        config_free(c);
}

static void test_comm_exe_user(void **state) {
        Config *c = load(rules_text);
        ProcessInfo p = { .comm = "blender", .exe = "/usr/bin/blender", .uid = 1000 };

        (void) state;
        assert_int_equal(rules_classify(c, &p), config_find_class(c, "performance"));
        p.exe = "/opt/blender/blender";
        assert_int_equal(rules_find(c, &p), -ENOENT);
        p.exe = NULL;           /* unknown exe never matches an Exe= rule */
        assert_int_equal(rules_find(c, &p), -ENOENT);

        /* every key of a rule must match */
        p = (ProcessInfo) { .comm = "vim", .uid = 65534 };     /* nobody */
        assert_int_equal(rules_find(c, &p), 4);
        p.uid = 1000;
        assert_int_equal(rules_find(c, &p), -ENOENT);
        p = (ProcessInfo) { .comm = "emacs", .uid = 1001 };
        assert_int_equal(rules_find(c, &p), 5);
        p.uid = 1002;
        assert_int_equal(rules_find(c, &p), -ENOENT);
        config_free(c);
}

static void test_first_match_wins(void **state) {
        Config *c = load(rules_text);
        /* matches both pinned-indexer (comm) and steam (unit): the first wins */
        ProcessInfo p = {
                .comm = "tracker-miner-f",
                .cgroup = "/user.slice/user@1000.service/app.slice/app-steam-9.scope",
        };

        (void) state;
        assert_int_equal(rules_find(c, &p), 0);
        assert_int_equal(rules_classify(c, &p), config_find_class(c, "background"));
        config_free(c);
}

static void test_default_class(void **state) {
        Config *c = load("[Daemon]\nDefaultClass=background\n");
        ProcessInfo p = { .comm = "bash" };

        (void) state;
        assert_int_equal(rules_classify(c, &p), config_find_class(c, "background"));
        config_free(c);
}

/* A user name is resolved once, at load: matching compares UIDs. */
static void test_user_resolved_at_load(void **state) {
        Config *c = load("[Rule:a]\nUser=root\nClass=background\n[Rule:b]\nUser=65534\nClass=background\n");

        (void) state;
        assert_int_equal(c->rules[0].uid, 0);
        assert_int_equal(c->rules[1].uid, 65534);
        config_free(c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unit_and_scope),
                cmocka_unit_test(test_manager_of_units),
                cmocka_unit_test(test_slice_any_level),
                cmocka_unit_test(test_comm_exe_user),
                cmocka_unit_test(test_first_match_wins),
                cmocka_unit_test(test_default_class),
                cmocka_unit_test(test_find_unit),
                cmocka_unit_test(test_user_resolved_at_load),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
