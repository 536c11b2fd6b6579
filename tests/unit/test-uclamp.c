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

static void test_probe_and_clamp(void **state) {
        char *root = tmpdir_new(), run[4096];
        Journal *j;
        Backend *b;
        const char *const groups[] = { "root", "interactive" };
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };

        (void) state;
        snprintf(run, sizeof(run), "%s/run/boostd", root);
        j = journal_new(run);
        b = backend_new(root, "/dev/stune", "/proc", j, false);
        b->set_util_min = fake_set_util_min;
        n_calls = 0;

        b->vt = &backend_uclamp;
        assert_int_equal(b->vt->probe(b), PROBE_FAIL);
        mkdirs(root, "proc/sys/kernel");
        write_file(root, "proc/sys/kernel/sched_util_clamp_min", "1024\n");
        assert_int_equal(backend_select(b, "uclamp"), 0);
        assert_ptr_equal(b->set_util_min, fake_set_util_min);

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
        assert_int_equal(b->vt->restore(b), 0);
        assert_int_equal(last_for(pid), 0);
        assert_int_equal(j->n_placed, 0);

        kill_sleeper(pid);
        assert_int_equal(b->vt->attach(b, "interactive", &id), -ESRCH);
        backend_free(b);
        journal_free(j);
        tmpdir_free(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mapping),
                cmocka_unit_test(test_probe_and_clamp),
        };

        log_set_max_level(LOG_CRIT);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
