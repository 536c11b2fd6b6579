/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The uclamp backend: probe, the boost to util_min mapping, and which
 * tasks get clamped (through the set_util_min seam). */
#include "tests.h"

#include "backend.h"
#include "log.h"

typedef struct Call {
        pid_t tid;
        unsigned util_min;
} Call;

/* The seam records calls here; one test at a time. */
static Call calls[64];
static size_t n_calls;

static int fake_set_util_min(pid_t tid, unsigned util_min) {
        if (n_calls < 64)
                calls[n_calls++] = (Call) { tid, util_min };
        return 0;
}

static unsigned last_for(pid_t tid) {
        for (size_t i = n_calls; i > 0; i--)
                if (calls[i - 1].tid == tid)
                        return calls[i - 1].util_min;
        fail_msg("no call for %d", (int) tid);
        return 0;
}

static void test_mapping(void **state) {
        (void) state;
        assert_int_equal(uclamp_from_boost(0), 0);
        assert_int_equal(uclamp_from_boost(1), 10);
        assert_int_equal(uclamp_from_boost(10), 102);
        assert_int_equal(uclamp_from_boost(50), 512);
        assert_int_equal(uclamp_from_boost(100), 1024);
        assert_int_equal(uclamp_from_boost(300), 1024);
}

/* The uclamp backend over the fake tree @root, its journal in
 * @root/run/boostd (*ret_j), sched_setattr() replaced by the fake. */
static Backend *uclamp_backend_new(const char *root, State **ret_j) {
        char run[4096];
        Backend *b;

        snprintf(run, sizeof(run), "%s/run/boostd", root);
        *ret_j = state_new(run);
        b = backend_new(root, "/dev/stune", "/proc", *ret_j, false, &quiet);
        assert_int_equal(backend_uclamp_set_util_min_hook(b, fake_set_util_min), 0);
        return b;
}

static void test_probe_and_clamp(void **state) {
        char *root = tmpdir_new();
        State *j;
        Backend *b;
        const char *const groups[] = { "root", "interactive" };
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };

        (void) state;
        b = uclamp_backend_new(root, &j);
        n_calls = 0;

        b->vt = &backend_uclamp;
        assert_int_equal(b->vt->probe(b), PROBE_FAIL);
        mkdirs(root, "proc/sys/kernel");
        write_file(root, "proc/sys/kernel/sched_util_clamp_min", "1024\n");
        assert_int_equal(backend_select(b, "uclamp"), 0);
        assert_ptr_equal(backend_uclamp_util_min_hook(b), fake_set_util_min);

        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(b->vt->start(b, groups, 2), 0);
        assert_int_equal(b->vt->apply(b, "interactive", 50), 0);
        assert_int_equal(n_calls, 0);           /* nobody in the group yet */
        assert_int_equal(b->vt->attach(b, "interactive", &id), 0);
        assert_int_equal(last_for(pid), 512);
        assert_int_equal(b->vt->apply(b, "interactive", 20), 0);
        assert_int_equal(last_for(pid), 205);
        /* the root group has no floor to set */
        n_calls = 0;
        assert_int_equal(b->vt->apply(b, "root", 90), 0);
        assert_int_equal(n_calls, 0);
        /* stopping takes the clamp off */
        assert_int_equal(backend_restore(b), 0);
        assert_int_equal(last_for(pid), 0);
        assert_int_equal(j->n_placed, 0);

        kill_sleeper(pid);
        assert_int_equal(b->vt->attach(b, "interactive", &id), -ESRCH);
        backend_free(b);
        state_free(j);
        tmpdir_free(root);
}

/* A class renamed on every reload: each old name is released and
 * forgotten, so the state never fills (it has room for GROUPS_MAX). */
static void test_renamed_classes(void **state) {
        char *root = tmpdir_new(), name[32];
        State *j;
        Backend *b;

        (void) state;
        b = uclamp_backend_new(root, &j);
        mkdirs(root, "proc/sys/kernel");
        write_file(root, "proc/sys/kernel/sched_util_clamp_min", "1024\n");
        assert_int_equal(backend_select(b, "uclamp"), 0);
        for (int i = 1; i <= 3 * GROUPS_MAX; i++) {
                const char *groups[] = { "root", "interactive", name };

                snprintf(name, sizeof(name), "renamed%d", i);
                assert_int_equal(b->vt->start(b, groups, 3), 0);
                assert_int_equal(b->vt->apply(b, name, 5), 0);
                if (i > 1) {
                        snprintf(name, sizeof(name), "renamed%d", i - 1);
                        assert_int_equal(backend_release(b, name), 0);
                        assert_null(state_get_group(j, name, false));
                }
        }
        assert_int_equal(j->n_groups, 3);
        backend_free(b);
        state_free(j);
        tmpdir_free(root);
}

/* A hint session's thread keeps its own uclamp.min while its group's
 * boost changes, and gets the group's when the session lets it go. */
static void test_session_thread_left_alone(void **state) {
        char *root = tmpdir_new();
        const char *const groups[] = { "root", "interactive" };
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };
        State *j;
        Backend *b;

        (void) state;
        b = uclamp_backend_new(root, &j);
        b->vt = &backend_uclamp;
        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(b->vt->start(b, groups, 2), 0);
        assert_int_equal(b->vt->apply(b, "interactive", 50), 0);
        assert_int_equal(b->vt->attach(b, "interactive", &id), 0);
        assert_int_equal(last_for(pid), 512);

        assert_false(backend_has_pool(b));
        assert_int_equal(backend_thread_pool(b, pid, 20), -EOPNOTSUPP);
        assert_int_equal(backend_thread_claim(b, pid), 0);
        n_calls = 0;
        assert_int_equal(b->vt->apply(b, "interactive", 20), 0);
        assert_int_equal(b->vt->attach(b, "interactive", &id), 0);
        assert_int_equal(n_calls, 0);
        /* let go: the group's value now, not the one before */
        assert_int_equal(backend_thread_release(b, pid), 0);
        assert_int_equal(last_for(pid), 205);
        assert_false(backend_thread_claimed(b, pid));

        assert_int_equal(backend_restore(b), 0);
        backend_free(b);
        state_free(j);
        kill_sleeper(pid);
        tmpdir_free(root);
}

static void test_percent_text(void **state) {
        char buf[16];
        unsigned h;

        (void) state;
        uclamp_percent_format(1234, buf, sizeof(buf));
        assert_string_equal(buf, "12.34\n");
        uclamp_percent_format(5000, buf, sizeof(buf));
        assert_string_equal(buf, "50.00\n");
        uclamp_percent_format(7, buf, sizeof(buf));
        assert_string_equal(buf, "0.07\n");
        uclamp_percent_format(20000, buf, sizeof(buf));
        assert_string_equal(buf, "100.00\n");

        assert_int_equal(uclamp_percent_parse("12.34", &h), 0);
        assert_int_equal(h, 1234);
        assert_int_equal(uclamp_percent_parse("50", &h), 0);
        assert_int_equal(h, 5000);
        assert_int_equal(uclamp_percent_parse("0.5", &h), 0);
        assert_int_equal(h, 50);
        assert_int_equal(uclamp_percent_parse("100.00", &h), 0);
        assert_int_equal(h, 10000);
        assert_int_equal(uclamp_percent_parse("100.01", &h), -ERANGE);
        assert_int_equal(uclamp_percent_parse("101", &h), -ERANGE);
        assert_int_equal(uclamp_percent_parse("", &h), -EINVAL);
        assert_int_equal(uclamp_percent_parse("12.", &h), -EINVAL);
        assert_int_equal(uclamp_percent_parse("1.234", &h), -EINVAL);
        assert_int_equal(uclamp_percent_parse("-1", &h), -EINVAL);
        assert_int_equal(uclamp_percent_parse("max", &h), -EINVAL);
}

/* The kernel turns cpu.uclamp.min (hundredths of a percent) into util as
 * DIV_ROUND_CLOSEST(h * 1024, 10000): for whole boosts that is the
 * util_min sched_setattr() gets. */
static void test_cgroup_and_task_agree(void **state) {
        (void) state;
        for (unsigned boost = 0; boost <= 100; boost++) {
                unsigned h = boost * 100;

                assert_int_equal((h * 1024 + 5000) / 10000, uclamp_from_boost(boost));
        }
}

typedef struct V2 {
        char *root;
        State *j;
        Backend *b;
} V2;

#define V2_DIR "sys/fs/cgroup/boostd"

static const char *const v2_groups[] = { "root", "interactive", "performance" };

/* A tree like a cgroup v2 group boostd owns, its children there. */
static int v2_setup(void **state) {
        V2 *v = calloc(1, sizeof(V2));
        char p[4096];

        v->root = tmpdir_new();
        mkdirs(v->root, "proc/sys/kernel");
        write_file(v->root, "proc/sys/kernel/sched_util_clamp_min", "1024\n");
        mkdirs(v->root, V2_DIR "/interactive");
        mkdirs(v->root, V2_DIR "/performance");
        write_file(v->root, V2_DIR "/cgroup.controllers", "cpu io memory pids\n");
        empty_file(v->root, V2_DIR "/cgroup.subtree_control");
        write_file(v->root, V2_DIR "/cpu.uclamp.min", "0.00\n");
        write_file(v->root, V2_DIR "/interactive/cpu.uclamp.min", "5.00\n");
        write_file(v->root, V2_DIR "/performance/cpu.uclamp.min", "0.00\n");
        v->b = uclamp_backend_new(v->root, &v->j);
        snprintf(p, sizeof(p), "%s/" V2_DIR, v->root);
        assert_int_equal(backend_uclamp_set_group(v->b, p), 0);
        assert_int_equal(backend_select(v->b, "uclamp"), 0);
        *state = v;
        return 0;
}

static int v2_teardown(void **state) {
        V2 *v = *state;

        backend_free(v->b);
        state_free(v->j);
        tmpdir_free(v->root);
        free(v);
        return 0;
}

static const char *v2_value(V2 *v, const char *group, char *buf, size_t size) {
        char p[256];

        snprintf(p, sizeof(p), V2_DIR "/%s/cpu.uclamp.min", group);
        assert_non_null(read_file(v->root, p, buf, size));
        return buf;
}

static void test_cgroup_v2(void **state) {
        V2 *v = *state;
        char buf[64];

        assert_int_equal(v->b->vt->start(v->b, v2_groups, 3), 0);
        assert_string_equal(read_file(v->root, V2_DIR "/cgroup.subtree_control", buf, sizeof(buf)), "+cpu");
        assert_int_equal(state_get_group(v->j, "interactive", false)->found, 5);

        assert_int_equal(v->b->vt->apply(v->b, "interactive", 50), 0);
        assert_string_equal(v2_value(v, "interactive", buf, sizeof(buf)), "50.00");
        assert_int_equal(v->b->vt->apply(v->b, "performance", 30), 0);
        assert_string_equal(v2_value(v, "performance", buf, sizeof(buf)), "30.00");
        /* root has no group of its own: its value would cap every class */
        assert_int_equal(v->b->vt->apply(v->b, "root", 90), 0);
        assert_string_equal(read_file(v->root, V2_DIR "/cpu.uclamp.min", buf, sizeof(buf)), "0.00");

        /* a group gone underneath: a precise error, the last value kept */
        {
                char p[4096];

                snprintf(p, sizeof(p), "%s/" V2_DIR "/performance/cpu.uclamp.min", v->root);
                assert_int_equal(unlink(p), 0);
                assert_int_equal(v->b->vt->apply(v->b, "performance", 40), -ENOENT);
                assert_int_equal(state_get_group(v->j, "performance", false)->wrote, 30);
                write_file(v->root, V2_DIR "/performance/cpu.uclamp.min", "30.00\n");
        }

        /* changed by hand: left alone on stop; the rest goes back to 0 */
        write_file(v->root, V2_DIR "/performance/cpu.uclamp.min", "77.00\n");
        assert_int_equal(backend_restore(v->b), 0);
        assert_string_equal(v2_value(v, "interactive", buf, sizeof(buf)), "0.00");
        assert_string_equal(v2_value(v, "performance", buf, sizeof(buf)), "77.00");
}

static void test_cgroup_v2_restore_found(void **state) {
        V2 *v = *state;
        char buf[64];

        v->b->restore_found = true;
        assert_int_equal(v->b->vt->start(v->b, v2_groups, 3), 0);
        assert_int_equal(v->b->vt->apply(v->b, "interactive", 50), 0);
        assert_int_equal(backend_restore(v->b), 0);
        assert_string_equal(v2_value(v, "interactive", buf, sizeof(buf)), "5.00");
}

static void test_cgroup_v2_bad_group(void **state) {
        V2 *v = *state;
        char p[4096];

        /* no cpu controller in a child: cpu.uclamp.min is missing */
        snprintf(p, sizeof(p), "%s/" V2_DIR "/performance/cpu.uclamp.min", v->root);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(v->b->vt->start(v->b, v2_groups, 3), -ENOENT);
        /* not a cgroup v2 group at all */
        snprintf(p, sizeof(p), "%s/" V2_DIR "/cgroup.controllers", v->root);
        assert_int_equal(unlink(p), 0);
        assert_int_equal(v->b->vt->start(v->b, v2_groups, 3), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mapping),
                cmocka_unit_test(test_probe_and_clamp),
                cmocka_unit_test(test_session_thread_left_alone),
                cmocka_unit_test(test_renamed_classes),
                cmocka_unit_test(test_percent_text),
                cmocka_unit_test(test_cgroup_and_task_agree),
                cmocka_unit_test_setup_teardown(test_cgroup_v2, v2_setup, v2_teardown),
                cmocka_unit_test_setup_teardown(test_cgroup_v2_restore_found, v2_setup, v2_teardown),
                cmocka_unit_test_setup_teardown(test_cgroup_v2_bad_group, v2_setup, v2_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
