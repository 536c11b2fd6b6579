/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Who decides a process's class: Classify() > a rule with Pin=yes >
 * GameMode > foreground > the first matching rule > DefaultClass=; the
 * unit and slices from the cgroup path; Pin= in the configuration. */
#include "tests.h"

#include "classify.h"

static Config *load_text(const char *main_text, const char *dropin) {
        char *dir = tmpdir_new(), path[4096], dpath[4096], *error = NULL;
        Config *c = NULL;

        write_file(dir, "boostd.conf", "%s", main_text);
        if (dropin) {
                mkdirs(dir, "boostd.conf.d");
                write_file(dir, "boostd.conf.d/50-x.conf", "%s", dropin);
        }
        snprintf(path, sizeof(path), "%s/boostd.conf", dir);
        snprintf(dpath, sizeof(dpath), "%s/boostd.conf.d", dir);
        if (config_load(path, false, dpath, &c, &error) < 0)
                fail_msg("config: %s", error);
        tmpdir_free(dir);
        return c;
}

static const char rules_text[] =
        "[Class:games]\nBoost=70\n"
        "[Rule:indexer]\nComm=indexer\nClass=background\nPin=yes\n"
        "[Rule:steam]\nUnit=app-steam-*.scope\nManager=user\nClass=games\n"
        "[Rule:builds]\nSlice=build.slice\nClass=background\n"
        "[Rule:blender]\nComm=blender\nClass=performance\n";

#define STEAM_SCOPE "/user.slice/user-1000.slice/user@1000.service/app.slice/app-steam-7.scope"

typedef struct Case {
        const char *comm;
        const char *cgroup;
        const char *explicit_class;
        bool game, foreground;
        const char *want;
        ClassifyReason reason;
        const char *inherited;  /* the class a parent's decision gives */
} Case;

static void test_precedence(void **state) {
        static const Case cases[] = {
                /* Classify() outranks everything */
                { "indexer", NULL, "interactive", true, true, "interactive", CLASSIFY_EXPLICIT, NULL },
                { "steam", STEAM_SCOPE, "root", true, true, "root", CLASSIFY_EXPLICIT, NULL },
                /* then a pinned rule: not even a game or the foreground moves it */
                { "indexer", NULL, NULL, true, true, "background", CLASSIFY_PINNED, NULL },
                { "indexer", NULL, NULL, false, false, "background", CLASSIFY_PINNED, NULL },
                /* then GameMode, above the foreground */
                { "steam", STEAM_SCOPE, NULL, true, true, "performance", CLASSIFY_GAME, NULL },
                { "other", NULL, NULL, true, false, "performance", CLASSIFY_GAME, NULL },
                /* then the foreground: interactive, above an unpinned rule */
                { "steam", STEAM_SCOPE, NULL, false, true, "interactive", CLASSIFY_FOREGROUND, NULL },
                { "other", NULL, NULL, false, true, "interactive", CLASSIFY_FOREGROUND, NULL },
                { "cc1", "/build.slice/job.service", NULL, false, true, "interactive", CLASSIFY_FOREGROUND, NULL },
                /* ... but never below performance its rule gives */
                { "blender", NULL, NULL, false, true, "performance", CLASSIFY_FOREGROUND, NULL },
                /* then a parent's decision, above an unpinned rule */
                { "cc1", "/build.slice/job.service", NULL, false, false, "performance", CLASSIFY_INHERITED, "performance" },
                { "other", NULL, NULL, false, false, "interactive", CLASSIFY_INHERITED, "interactive" },
                { "indexer", NULL, NULL, false, false, "background", CLASSIFY_PINNED, "performance" },
                { "steam", STEAM_SCOPE, NULL, false, true, "interactive", CLASSIFY_FOREGROUND, "performance" },
                { "steam", STEAM_SCOPE, NULL, true, false, "performance", CLASSIFY_GAME, "background" },
                /* then the first matching rule */
                { "steam", STEAM_SCOPE, NULL, false, false, "games", CLASSIFY_RULE, NULL },
                { "cc1", "/build.slice/job.service", NULL, false, false, "background", CLASSIFY_RULE, NULL },
                { "blender", NULL, NULL, false, false, "performance", CLASSIFY_RULE, NULL },
                /* then DefaultClass= */
                { "other", "/system.slice/x.service", NULL, false, false, "root", CLASSIFY_DEFAULT, NULL },
        };
        Config *c = load_text(rules_text, NULL);

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const Case *t = &cases[i];
                ProcessInfo info = { .pid = 42, .comm = t->comm, .cgroup = t->cgroup, .uid = 1000 };
                ClassifyFacts f = {
                        .info = &info,
                        .explicit_class = t->explicit_class ? config_find_class(c, t->explicit_class) : -1,
                        .game = t->game,
                        .foreground = t->foreground,
                        .inherited = t->inherited != NULL,
                };
                ClassifyReason reason = _CLASSIFY_REASON_MAX;
                int g;

                if (t->inherited)
                        f.inherited_class = (size_t) config_find_class(c, t->inherited);
                g = classify_process(c, &f, &reason);

                if (g != config_find_class(c, t->want) || reason != t->reason)
                        fail_msg("case %zu (%s): got %s (%s), want %s (%s)", i, t->comm,
                                 g >= 0 ? c->classes[g].name : "error", classify_reason_to_string(reason),
                                 t->want, classify_reason_to_string(t->reason));
        }
        config_free(c);
}

/* Pin= belongs to the rule that matches first: a later pinned rule that
 * also matches does not pin. */
static void test_pin_of_first_match_only(void **state) {
        Config *c = load_text("[Rule:first]\nComm=x\nClass=background\n"
                              "[Rule:later]\nComm=x\nClass=performance\nPin=yes\n", NULL);
        ProcessInfo info = { .comm = "x" };
        ClassifyFacts f = { .info = &info, .explicit_class = -1, .foreground = true };
        ClassifyReason reason;

        (void) state;
        assert_int_equal(classify_process(c, &f, &reason), config_find_class(c, "interactive"));
        assert_int_equal(reason, CLASSIFY_FOREGROUND);
        f.foreground = false;
        assert_int_equal(classify_process(c, &f, &reason), config_find_class(c, "background"));
        assert_int_equal(reason, CLASSIFY_RULE);
        config_free(c);
}

/* A drop-in may pin an earlier rule or unpin it, keeping its place. */
static void test_pin_parsing(void **state) {
        Config *c = load_text("[Rule:a]\nComm=a\nClass=background\n"
                              "[Rule:b]\nComm=b\nClass=background\nPin=true\n"
                              "[Rule:c]\nComm=c\nClass=background\nPin=1\n",
                              "[Rule:a]\nPin=yes\n[Rule:c]\nPin=no\n");

        (void) state;
        assert_int_equal(c->n_rules, 3);
        assert_string_equal(c->rules[0].name, "a");
        assert_true(c->rules[0].pin);
        assert_true(c->rules[1].pin);
        assert_false(c->rules[2].pin);
        config_free(c);
}

/* The unit and slices come from the cgroup path the process was found
 * in. */
static void test_unit_and_slice_from_path(void **state) {
        Config *c = load_text(rules_text, NULL);
        ProcessInfo info = { .comm = "steam", .cgroup = STEAM_SCOPE "/sub" };
        ClassifyFacts f = { .info = &info, .explicit_class = -1 };
        char buf[256], *unit = NULL;

        (void) state;
        assert_int_equal(classify_process(c, &f, NULL), config_find_class(c, "games"));
        info.cgroup = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-firefox-1.scope";
        assert_int_equal(classify_process(c, &f, NULL), c->default_class_index);
        info.cgroup = "/build.slice/inner.slice/make.scope";
        assert_int_equal(classify_process(c, &f, NULL), config_find_class(c, "background"));

        assert_int_equal(cgroup_path_unit_prefix(STEAM_SCOPE "/sub"), strlen(STEAM_SCOPE));
        assert_int_equal(cgroup_path_unit_prefix("/system.slice/cron.service"),
                         strlen("/system.slice/cron.service"));
        assert_int_equal(cgroup_path_unit_prefix("/user.slice"), 0);
        assert_int_equal(cgroup_path_unit_prefix(""), 0);
        assert_string_equal(cgroup_path_unit(STEAM_SCOPE "/sub", buf, sizeof(buf)), "app-steam-7.scope");
        assert_true(cgroup_path_is_in(STEAM_SCOPE "/sub", STEAM_SCOPE));
        assert_true(cgroup_path_is_in(STEAM_SCOPE, STEAM_SCOPE));
        assert_false(cgroup_path_is_in(STEAM_SCOPE "0", STEAM_SCOPE));
        assert_false(cgroup_path_is_in(NULL, STEAM_SCOPE));

        /* the app's unit: its own scope or service, not the session's */
        assert_int_equal(classify_app_unit(STEAM_SCOPE "/sub", &unit), 1);
        assert_string_equal(unit, STEAM_SCOPE);
        free(unit);
        assert_int_equal(classify_app_unit("/system.slice/foo.service", &unit), 1);
        assert_string_equal(unit, "/system.slice/foo.service");
        free(unit);
        assert_int_equal(classify_app_unit("/user.slice/user-1000.slice/session-2.scope", &unit), 0);
        assert_null(unit);
        assert_int_equal(classify_app_unit("/user.slice/user-1000.slice/user@1000.service/init.scope", &unit), 0);
        assert_null(unit);
        assert_int_equal(classify_app_unit("/user.slice/user-1000.slice/user@1000.service", &unit), 0);
        assert_null(unit);
        assert_int_equal(classify_app_unit("/user.slice", &unit), 0);
        assert_null(unit);
        assert_int_equal(classify_app_unit(NULL, &unit), 0);
        config_free(c);
}

static void test_reason_names(void **state) {
        (void) state;
        for (int r = 0; r < _CLASSIFY_REASON_MAX; r++)
                assert_non_null(classify_reason_to_string((ClassifyReason) r));
        assert_null(classify_reason_to_string(_CLASSIFY_REASON_MAX));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_precedence),
                cmocka_unit_test(test_pin_of_first_match_only),
                cmocka_unit_test(test_pin_parsing),
                cmocka_unit_test(test_unit_and_slice_from_path),
                cmocka_unit_test(test_reason_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
