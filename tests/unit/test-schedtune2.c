/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune2 backend (the 6.12 series: cgroup v2, per-task boosts):
 * probe and its reason, the root class through the sysctl, the other
 * classes as each placed process's threads' own boost (through the
 * set_boost seam), hint-session threads left alone, restore. */
#include "tests.h"

#include "backend.h"
#include "log.h"

typedef struct Call {
        pid_t tid;
        unsigned boost;
} Call;

static Call calls[64];
static size_t n_calls;

static int fake_set_boost(pid_t tid, unsigned boost) {
        if (n_calls < 64)
                calls[n_calls++] = (Call) { tid, boost };
        return 0;
}

static int last_for(pid_t tid) {
        for (size_t i = n_calls; i > 0; i--)
                if (calls[i - 1].tid == tid)
                        return (int) calls[i - 1].boost;
        return -1;
}

typedef struct Fixture {
        char *root;
        State *j;
        Backend *b;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));
        char run[4096];

        f->root = tmpdir_new();
        snprintf(run, sizeof(run), "%s/run/boostd", f->root);
        f->j = state_new(run);
        f->b = backend_new(f->root, "/dev/stune", "/proc", f->j, true, &quiet);
        assert_int_equal(backend_schedtune2_set_boost_hook(f->b, fake_set_boost), 0);
        n_calls = 0;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        backend_free(f->b);
        state_free(f->j);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static void test_probe(void **state) {
        Fixture *f = *state;

        /* no sysctl: not this kernel */
        assert_int_equal(backend_select(f->b, "schedtune2"), -EOPNOTSUPP);
        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "7\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_string_equal(backend_name(f->b), "schedtune2");
        assert_string_equal(backend_reason(f->b),
                            "/proc/sys/kernel/sched_cfs_boost and per-task boosts (the 6.12 SchedTune series, "
                            "cgroup v2) (Backend=)");
        /* auto: schedtune first, which says why not */
        write_file(f->root, "proc/cgroups", "#subsys_name hierarchy num_cgroups enabled\ncpu 0 1 1\n");
        assert_int_equal(backend_select(f->b, "auto"), 0);
        assert_string_equal(backend_name(f->b), "schedtune2");
        assert_non_null(strstr(backend_reason(f->b),
                               "; not schedtune: no schedtune controller in /proc/cgroups"));
}

static void test_classes(void **state) {
        Fixture *f = *state;
        const char *const groups[] = { "root", "interactive", "performance" };
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };
        char buf[32];

        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "7\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(f->b->vt->start(f->b, groups, 3), 0);
        assert_int_equal(state_get_group(f->j, "root", false)->found, 7);

        /* the root class: the sysctl */
        assert_int_equal(f->b->vt->apply(f->b, "root", 15), 0);
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "15");
        assert_int_equal(n_calls, 0);
        /* another class: its processes' threads, each its own boost */
        assert_int_equal(f->b->vt->apply(f->b, "interactive", 30), 0);
        assert_int_equal(n_calls, 0);           /* nobody there yet */
        assert_int_equal(f->b->vt->attach(f->b, "interactive", &id), 0);
        assert_int_equal(last_for(pid), 30);
        assert_int_equal(f->b->vt->apply(f->b, "interactive", 40), 0);
        assert_int_equal(last_for(pid), 40);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 80), 0);
        assert_int_equal(last_for(pid), 40);    /* not its class */
        assert_int_equal(f->b->vt->attach(f->b, "performance", &id), 0);
        assert_int_equal(last_for(pid), 80);
        /* the sysctl is not touched by a class */
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "15");

        /* a hint session's thread keeps its own while claimed, and gets
         * its class's when let go */
        assert_int_equal(backend_thread_claim(f->b, pid), 0);
        n_calls = 0;
        assert_int_equal(f->b->vt->apply(f->b, "performance", 60), 0);
        assert_int_equal(n_calls, 0);
        assert_int_equal(backend_thread_release(f->b, pid), 0);
        assert_int_equal(last_for(pid), 60);

        /* stop: the process's own boost back to 0, the sysctl to what
         * was found */
        assert_int_equal(backend_restore(f->b), 0);
        assert_int_equal(last_for(pid), 0);
        assert_int_equal(f->j->n_placed, 0);
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "7");

        kill_sleeper(pid);
        assert_int_equal(f->b->vt->attach(f->b, "interactive", &id), -ESRCH);
}

/* A sysctl changed by hand since boostd wrote it is left at stop. */
static void test_changed_by_hand(void **state) {
        Fixture *f = *state;
        const char *const groups[] = { "root" };
        char buf[32];

        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "0\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_int_equal(f->b->vt->start(f->b, groups, 1), 0);
        assert_int_equal(f->b->vt->apply(f->b, "root", 20), 0);
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "33\n");
        assert_int_equal(backend_restore(f->b), 0);
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "33");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_classes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_changed_by_hand, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
