/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint sessions applied to threads of a fake /proc: the largest output
 * wins, values come back, gone threads are dropped, stale sessions fall
 * to the low bound on their timer. */
#include "tests.h"

#include "event-util.h"
#include "hint-sessions.h"

#define T 16666667ULL

typedef struct Fixture {
        char *root;
        char proc[4096];
        sd_event *event;
        HintConfig config;
        HintSessions w;
        unsigned changes;
} Fixture;

static bool file_exists(const char *root, const char *rel) {
        char p[4096];

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        return access(p, F_OK) == 0;
}

/* Thread tid of process pid, of user uid, started at start (field 22 of
 * its stat), with uclamp.min v. */
static void put_thread(Fixture *f, pid_t pid, pid_t tid, uid_t uid, unsigned start, unsigned v) {
        char rel[128];

        snprintf(rel, sizeof(rel), "proc/%d/task/%d", (int) pid, (int) tid);
        mkdirs(f->root, rel);
        snprintf(rel, sizeof(rel), "proc/%d", (int) tid);
        mkdirs(f->root, rel);
        snprintf(rel, sizeof(rel), "proc/%d/util_min", (int) tid);
        write_file(f->root, rel, "%u\n", v);
        snprintf(rel, sizeof(rel), "proc/%d/status", (int) tid);
        write_file(f->root, rel, "Name:\tt\nUid:\t%u\t%u\t%u\t%u\n", (unsigned) uid, (unsigned) uid,
                   (unsigned) uid, (unsigned) uid);
        snprintf(rel, sizeof(rel), "proc/%d/stat", (int) tid);
        write_file(f->root, rel, "%d (t) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 %u\n", (int) tid, start);
        /* its process, started when its main thread did */
        snprintf(rel, sizeof(rel), "proc/%d/stat", (int) pid);
        if (pid != tid && !file_exists(f->root, rel))
                write_file(f->root, rel, "%d (t) S 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 %u\n", (int) pid,
                           (unsigned) pid);
}

/* Thread tid of process pid, of UID 1000, with uclamp.min v. */
static void add_thread(Fixture *f, pid_t pid, pid_t tid, unsigned v) {
        put_thread(f, pid, tid, 1000, (unsigned) tid, v);
}

static void remove_thread(Fixture *f, pid_t pid, pid_t tid) {
        char p[4096];

        snprintf(p, sizeof(p), "%s/proc/%d/util_min", f->root, (int) tid);
        assert_int_equal(unlink(p), 0);
        snprintf(p, sizeof(p), "%s/proc/%d/status", f->root, (int) tid);
        assert_int_equal(unlink(p), 0);
        snprintf(p, sizeof(p), "%s/proc/%d/stat", f->root, (int) tid);
        assert_int_equal(unlink(p), 0);
        snprintf(p, sizeof(p), "%s/proc/%d/task/%d", f->root, (int) pid, (int) tid);
        assert_int_equal(rmdir(p), 0);
        snprintf(p, sizeof(p), "%s/proc/%d", f->root, (int) tid);
        assert_int_equal(rmdir(p), 0);
}

static unsigned util_min(Fixture *f, pid_t tid) {
        char p[4096];
        unsigned v = 9999;
        FILE *fp;

        snprintf(p, sizeof(p), "%s/proc/%d/util_min", f->root, (int) tid);
        fp = fopen(p, "re");
        assert_non_null(fp);
        assert_int_equal(fscanf(fp, "%u", &v), 1);
        fclose(fp);
        return v;
}

static void on_output(void *userdata, const HintSession *x) {
        Fixture *f = userdata;

        (void) x;
        f->changes++;
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        assert_non_null(f);
        f->root = tmpdir_new();
        snprintf(f->proc, sizeof(f->proc), "%s/proc", f->root);
        mkdirs(f->root, "proc");
        assert_int_equal(sd_event_new(&f->event), 0);
        hint_config_init(&f->config);
        assert_int_equal(hint_sessions_init(&f->w, f->root, f->proc, f->event, &f->config, &quiet), 0);
        f->w.userdata = f;
        f->w.output_changed = on_output;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        hint_sessions_done(&f->w);
        sd_event_unref(f->event);
        hint_config_done(&f->config);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static void test_apply_and_give_back(void **state) {
        Fixture *f = *state;
        HintWork over = { 1, 3 * T };
        uint32_t a, b;

        add_thread(f, 100, 100, 0);
        add_thread(f, 100, 101, 250);
        add_thread(f, 200, 201, 7);
        /* the threads must be the process's */
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 201 }, 2,
                                              T, NULL), -ESRCH);
        assert_int_equal(f->w.table.n, 0);
        assert_int_equal(util_min(f, 100), 0);

        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 101 }, 2,
                                              T, &a), 0);
        assert_int_equal(util_min(f, 100), 100);
        assert_int_equal(util_min(f, 101), 100);
        assert_int_equal(hint_sessions_create(&f->w, ":1.2", 1000, 200, false, (pid_t[]) { 201 }, 1, T, &b),
                         0);
        /* only the owner reports */
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.2", &over, 1), -EPERM);
        assert_int_equal(hint_sessions_report(&f->w, 99, ":1.1", &over, 1), -ENOENT);
        f->changes = 0;
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(util_min(f, 100), f->config.high);
        assert_int_equal(util_min(f, 101), f->config.high);
        assert_int_equal(util_min(f, 201), 100);
        assert_int_equal(f->changes, 1);

        /* SetThreads: 101 leaves and gets its 250 back */
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 100 }, 1), 1);
        assert_int_equal(util_min(f, 101), 250);
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 201 }, 1), -ESRCH);

        /* a thread that is gone leaves its session */
        add_thread(f, 100, 102, 0);
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 100, 102 }, 2), 1);
        assert_int_equal(util_min(f, 102), f->config.high);
        remove_thread(f, 100, 102);
        assert_int_equal(hint_sessions_hint(&f->w, a, ":1.1", HINT_LOAD_DOWN), 0);
        assert_int_equal(hint_table_find(&f->w.table, a)->n_tids, 1);
        assert_int_equal(util_min(f, 100), f->config.low);
        assert_int_equal(f->w.n_applied, 2);    /* 100 and 201 */

        /* closing gives the value back; a client's leaving closes all */
        assert_int_equal(hint_sessions_close(&f->w, b, ":1.1"), -EPERM);
        assert_int_equal(hint_sessions_close_owner(&f->w, ":1.2"), 1);
        assert_int_equal(util_min(f, 201), 7);
        assert_int_equal(f->w.n_applied, 1);
        assert_int_equal(hint_sessions_close(&f->w, a, ":1.1"), 0);
        assert_int_equal(util_min(f, 100), 0);
        assert_int_equal(f->w.n_applied, 0);
}

static void test_largest_output_and_reset(void **state) {
        Fixture *f = *state;
        HintWork over = { 1, 3 * T }, under = { 1, T / 2 };
        uint32_t a, b;

        add_thread(f, 100, 100, 0);
        add_thread(f, 100, 101, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 101 }, 2, T,
                                              &a), 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 101 }, 1, T, &b), 0);
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(hint_sessions_report(&f->w, b, ":1.1", &under, 1), 0);
        /* 101 takes the larger of the two */
        assert_int_equal(util_min(f, 101), f->config.high);
        assert_int_equal(hint_sessions_close(&f->w, a, ":1.1"), 0);
        assert_true(util_min(f, 101) < 100);
        /* 100 had 0: it is reset, which reads back as 0 */
        assert_int_equal(util_min(f, 100), 0);
}

/* With any, a thread of another process of the session's user. */
static void test_threads_of_any_process_of_the_user(void **state) {
        Fixture *f = *state;
        uint32_t a;

        add_thread(f, 100, 100, 0);
        add_thread(f, 200, 201, 0);
        add_thread(f, 300, 301, 0);
        write_file(f->root, "proc/201/status", "Name:\tx\nUid:\t1000\t1000\t1000\t1000\n");
        write_file(f->root, "proc/301/status", "Name:\ty\nUid:\t1001\t1001\t1001\t1001\n");
        assert_false(hint_sessions_threads_of(&f->w, 100, (pid_t[]) { 100, 201 }, 2));
        assert_true(hint_sessions_threads_of(&f->w, 100, (pid_t[]) { 100 }, 1));
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 201 }, 2,
                                              T, &a), -ESRCH);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, true, (pid_t[]) { 100, 301 }, 2,
                                              T, &a), -ESRCH);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, true, (pid_t[]) { 100, 201 }, 2,
                                              T, &a), 0);
        assert_int_equal(util_min(f, 201), f->config.initial);
        /* SetThreads keeps the rule the session was made with */
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 301 }, 1), -ESRCH);
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 201 }, 1), 1);
}

/* A reload's new bounds apply to the open sessions at once. */
static void test_reconfigure(void **state) {
        Fixture *f = *state;
        HintWork over = { 1, 3 * T };
        HintConfig c = f->config;
        uint32_t a;

        add_thread(f, 100, 100, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100 }, 1, T, &a), 0);
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(util_min(f, 100), 384);
        c.high = 200;
        c.initial = 50;
        hint_sessions_reconfigure(&f->w, &c);
        assert_int_equal(util_min(f, 100), 200);
        assert_int_equal(hint_sessions_hint(&f->w, a, ":1.1", HINT_LOAD_DOWN), 0);
        assert_int_equal(util_min(f, 100), 0);
        c.low = 80;
        c.initial = 90;
        hint_sessions_reconfigure(&f->w, &c);
        assert_int_equal(util_min(f, 100), 80);
}

static void test_stale_on_the_timer(void **state) {
        Fixture *f = *state;
        HintWork over = { 1, 3 * 1000000ULL };
        uint64_t deadline;
        uint32_t a;

        add_thread(f, 100, 100, 0);
        /* a 1 ms target: stale 10 ms after the last report */
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100 }, 1, 1000000ULL,
                                              &a), 0);
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(util_min(f, 100), f->config.high);
        deadline = now_usec() + 2000000;
        while (util_min(f, 100) != f->config.low && now_usec() < deadline)
                assert_true(sd_event_run(f->event, 100000) >= 0);
        assert_int_equal(util_min(f, 100), f->config.low);
        /* the next report brings the value back */
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(util_min(f, 100), f->config.high);
}

/* A client's PID comes from its connection's credentials: once it has
 * exited, that PID (or a TID) may be another user's process's. Only the
 * owner's threads count, in every method. */
static void test_only_the_owners_threads(void **state) {
        Fixture *f = *state;
        uint32_t a;

        put_thread(f, 100, 100, 1000, 100, 0);
        put_thread(f, 100, 102, 0, 102, 512);   /* root's, under the client's PID */
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 102 }, 2,
                                              T, &a), -ESRCH);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, true, (pid_t[]) { 102 }, 1, T, &a),
                         -ESRCH);
        assert_int_equal(f->w.table.n, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100 }, 1, T, &a),
                         0);
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 100, 102 }, 2), -ESRCH);
        assert_int_equal(util_min(f, 102), 512);
        assert_int_equal(hint_sessions_close(&f->w, a, ":1.1"), 0);
        assert_int_equal(util_min(f, 102), 512);
}

/* A named thread exits and its TID is taken: by a thread of the same user
 * (the start time tells them apart), then by root's. Neither is given
 * the session's output, nor a value back when the session closes. */
static void test_reused_tid(void **state) {
        Fixture *f = *state;
        HintWork over = { 1, 3 * T };
        uint32_t a;

        add_thread(f, 100, 100, 0);
        add_thread(f, 100, 101, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 101 }, 2,
                                              T, &a), 0);
        assert_int_equal(util_min(f, 101), f->config.initial);
        remove_thread(f, 100, 101);
        put_thread(f, 300, 101, 1000, 5000, 300);
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(util_min(f, 100), f->config.high);
        assert_int_equal(util_min(f, 101), 300);
        remove_thread(f, 300, 101);
        put_thread(f, 400, 101, 0, 6000, 512);
        assert_int_equal(hint_sessions_report(&f->w, a, ":1.1", &over, 1), 0);
        assert_int_equal(util_min(f, 101), 512);
        assert_int_equal(hint_sessions_close(&f->w, a, ":1.1"), 0);
        assert_int_equal(util_min(f, 100), 0);
        assert_int_equal(util_min(f, 101), 512);
}

/* The thread given an output exits between two reports and its TID is
 * taken at once: the value it had before is not "given back" to the new
 * thread. */
static void test_no_restore_to_a_reused_tid(void **state) {
        Fixture *f = *state;
        uint32_t a;

        add_thread(f, 100, 100, 0);
        add_thread(f, 100, 101, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100, 101 }, 2,
                                              T, &a), 0);
        remove_thread(f, 100, 101);
        put_thread(f, 400, 101, 0, 6000, 512);
        assert_int_equal(hint_sessions_close(&f->w, a, ":1.1"), 0);
        assert_int_equal(util_min(f, 101), 512);
        assert_int_equal(util_min(f, 100), 0);
}

/* SetThreads of a session made for its own process: that process, not
 * one that took its PID after it exited. */
static void test_set_threads_after_pid_reuse(void **state) {
        Fixture *f = *state;
        uint32_t a;

        add_thread(f, 100, 100, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100 }, 1, T, &a),
                         0);
        put_thread(f, 100, 100, 1000, 7000, 0);        /* a new process 100 */
        put_thread(f, 100, 105, 1000, 7001, 0);
        assert_int_equal(hint_sessions_set_threads(&f->w, a, ":1.1", (pid_t[]) { 105 }, 1), -ESRCH);
        assert_int_equal(util_min(f, 105), 0);
}

/* Every call on a session takes from its client's one bucket, reports or
 * not; one that fails costs nothing; a call that changes nothing says
 * so (the bus then sends no PropertiesChanged). */
static uint64_t fixed_now;

static uint64_t fixed_clock(void) {
        return fixed_now;
}

static void test_every_call_takes_a_token(void **state) {
        Fixture *f = *state;
        uint32_t a, b;

        /* no refill while the test runs, however slowly (valgrind) */
        fixed_now = 1000 * HINT_REPORT_INTERVAL_NS;
        f->w.clock = fixed_clock;
        add_thread(f, 100, 100, 0);
        add_thread(f, 100, 101, 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 100 }, 1, T, &a),
                         0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", 1000, 100, false, (pid_t[]) { 101 }, 1, T, &b),
                         0);
        assert_int_equal(hint_sessions_set_target(&f->w, a, ":1.1", 0), -EINVAL);
        assert_int_equal(hint_sessions_set_target(&f->w, a, ":1.1", T), 0);
        assert_int_equal(hint_sessions_set_target(&f->w, a, ":1.1", 2 * T), 1);
        assert_int_equal(hint_sessions_set_threads(&f->w, b, ":1.1", (pid_t[]) { 101 }, 1), 0);
        assert_int_equal(hint_sessions_set_threads(&f->w, b, ":1.1", (pid_t[]) { 101, 100 }, 2), 1);
        for (unsigned i = 0; i < HINT_REPORT_BURST - 4; i++)
                assert_int_equal(hint_sessions_hint(&f->w, i % 2 ? a : b, ":1.1",
                                                    i % 2 ? HINT_LOAD_UP : HINT_LOAD_DOWN), 0);
        assert_int_equal(hint_sessions_hint(&f->w, a, ":1.1", HINT_LOAD_DOWN), -EBUSY);
        assert_int_equal(hint_sessions_set_target(&f->w, b, ":1.1", T), -EBUSY);
        assert_int_equal(hint_sessions_set_threads(&f->w, b, ":1.1", (pid_t[]) { 101 }, 1), -EBUSY);
        assert_int_equal(hint_sessions_report(&f->w, b, ":1.1", &(HintWork) { 1, T }, 1), -EBUSY);
        /* the last load-down (on b) is what the threads have */
        assert_int_equal(util_min(f, 101), f->config.low);
        /* Close is never refused */
        assert_int_equal(hint_sessions_close(&f->w, a, ":1.1"), 0);
        assert_int_equal(hint_sessions_close(&f->w, b, ":1.1"), 0);
        assert_int_equal(util_min(f, 100), 0);
        assert_int_equal(util_min(f, 101), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_apply_and_give_back, setup, teardown),
                cmocka_unit_test_setup_teardown(test_largest_output_and_reset, setup, teardown),
                cmocka_unit_test_setup_teardown(test_threads_of_any_process_of_the_user, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reconfigure, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stale_on_the_timer, setup, teardown),
                cmocka_unit_test_setup_teardown(test_only_the_owners_threads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reused_tid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_restore_to_a_reused_tid, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_threads_after_pid_reuse, setup, teardown),
                cmocka_unit_test_setup_teardown(test_every_call_takes_a_token, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
