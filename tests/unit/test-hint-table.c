/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint-session bookkeeping: ownership, limits, threads, the rate limit. */
#include "tests.h"

#include "hint-table.h"

#define T 16666667ULL

static void test_create_close(void **state) {
        HintConfig c;
        HintTable s;
        HintSession *x = NULL, *y = NULL;
        pid_t tids[] = { 100, 101 };
        void *ud = NULL;
        unsigned out;

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        assert_int_equal(hint_table_create(&s, ":1.5", 1000, 100, tids, 2, T, 0, &x), 0);
        assert_non_null(x);
        assert_int_equal(x->id, 1);
        x->userdata = (void *) 0x42;
        assert_int_equal(hint_table_create(&s, ":1.6", 1001, 200, (pid_t[]) { 101 }, 1, T, 0, &y),
                         0);
        assert_int_equal(y->id, 2);
        assert_ptr_equal(hint_table_find(&s, 1), x);
        assert_null(hint_table_find(&s, 3));

        /* both start at the initial output; thread 101 is in both */
        assert_int_equal(hint_table_thread_output(&s, 100, 0, &out), 0);
        assert_int_equal(out, c.initial);
        assert_int_equal(hint_table_thread_output(&s, 102, 0, &out), -ENOENT);

        /* only the owner closes (NULL: the manager) */
        assert_int_equal(hint_table_close(&s, 1, ":1.6", &ud), -EPERM);
        assert_int_equal(hint_table_close(&s, 9, ":1.5", &ud), -ENOENT);
        assert_int_equal(hint_table_close(&s, 1, ":1.5", &ud), 0);
        assert_ptr_equal(ud, (void *) 0x42);
        assert_int_equal(hint_table_close(&s, 1, ":1.5", &ud), -ENOENT);
        assert_int_equal(hint_table_thread_output(&s, 100, 0, &out), -ENOENT);
        assert_int_equal(hint_table_close(&s, 2, NULL, NULL), 0);
        assert_int_equal(s.n, 0);

        /* an id is not handed out again */
        assert_int_equal(hint_table_create(&s, ":1.5", 1000, 100, tids, 2, T, 0, &x), 0);
        assert_int_equal(x->id, 3);
        hint_table_done(&s);
}

static void test_bad_arguments(void **state) {
        HintConfig c;
        HintTable s;
        pid_t many[HINT_THREADS_MAX + 1];

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        for (size_t i = 0; i < ELEMENTSOF(many); i++)
                many[i] = (pid_t) (100 + i);
        assert_int_equal(hint_table_create(&s, NULL, 0, 1, many, 1, T, 0, NULL), -EINVAL);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 0, many, 1, T, 0, NULL), -EINVAL);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, many, 0, T, 0, NULL), -EINVAL);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, many, ELEMENTSOF(many), T, 0, NULL),
                         -EINVAL);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, (pid_t[]) { 5, 0 }, 2, T, 0, NULL),
                         -EINVAL);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, (pid_t[]) { 5, 6, 5 }, 3, T, 0, NULL),
                         -EINVAL);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, many, 1, 99999, 0, NULL), -EINVAL);
        assert_int_equal(s.n, 0);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, many, HINT_THREADS_MAX, T, 0, NULL),
                         0);
        hint_table_done(&s);
}

static void test_limits(void **state) {
        HintConfig c;
        HintTable s;
        pid_t t = 100;
        char owner[32];

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        for (unsigned i = 0; i < HINT_SESSIONS_PER_OWNER_MAX; i++)
                assert_int_equal(hint_table_create(&s, ":1.1", 1000, 1, &t, 1, T, 0, NULL), 0);
        assert_int_equal(hint_table_create(&s, ":1.1", 1000, 1, &t, 1, T, 0, NULL), -EUSERS);
        /* other clients of the same user, up to the user's limit */
        for (unsigned i = HINT_SESSIONS_PER_OWNER_MAX; i < HINT_SESSIONS_PER_UID_MAX; i++) {
                snprintf(owner, sizeof(owner), ":1.%u", 100 + i);
                assert_int_equal(hint_table_create(&s, owner, 1000, 1, &t, 1, T, 0, NULL), 0);
        }
        assert_int_equal(hint_table_create(&s, ":1.999", 1000, 1, &t, 1, T, 0, NULL), -EUSERS);
        /* another user is not held back by the first one */
        assert_int_equal(hint_table_create(&s, ":1.999", 1001, 1, &t, 1, T, 0, NULL), 0);
        /* root has no per-user limit, only the table's */
        for (unsigned i = 0; s.n < HINT_SESSIONS_MAX; i++) {
                snprintf(owner, sizeof(owner), ":2.%u", i);
                assert_int_equal(hint_table_create(&s, owner, 0, 1, &t, 1, T, 0, NULL), 0);
        }
        assert_int_equal(hint_table_create(&s, ":3.1", 0, 1, &t, 1, T, 0, NULL), -EUSERS);
        assert_int_equal(hint_table_find_owner(&s, ":1.1"), 0);
        assert_int_equal(hint_table_find_owner(&s, ":9.9"), -ENOENT);
        hint_table_done(&s);
}

static void test_threads_and_largest_output(void **state) {
        HintConfig c;
        HintTable s;
        HintSession *a, *b;
        HintWork over = { T, 3 * T };
        unsigned out;
        size_t n;

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, (pid_t[]) { 10, 11 }, 2, T, 0, &a), 0);
        assert_int_equal(hint_table_create(&s, ":1.2", 0, 2, (pid_t[]) { 11, 12 }, 2, T, 0, &b), 0);
        assert_int_equal(hint_table_report(&s, b, &over, 1, T), 0);
        /* 11 is in both: the larger output wins */
        assert_int_equal(hint_table_thread_output(&s, 10, T, &out), 0);
        assert_int_equal(out, c.initial);
        assert_int_equal(hint_table_thread_output(&s, 11, T, &out), 0);
        assert_int_equal(out, c.high);
        /* whatever the order of the sessions */
        assert_int_equal(hint_table_create(&s, ":1.3", 0, 3, (pid_t[]) { 11 }, 1, T, T, NULL), 0);
        assert_int_equal(hint_table_thread_output(&s, 11, T, &out), 0);
        assert_int_equal(out, c.high);
        assert_int_equal(hint_table_close(&s, 3, ":1.3", NULL), 0);
        /* a thread that exits leaves each session that names it */
        hint_table_drop_thread(&s, a, hint_table_thread_index(a, 11));
        assert_int_equal(hint_table_thread_output(&s, 11, T, &out), 0);
        hint_table_drop_thread(&s, b, hint_table_thread_index(b, 11));
        assert_int_equal(hint_table_thread_output(&s, 11, T, &out), -ENOENT);
        assert_int_equal(a->n_tids, 1);
        assert_int_equal(a->tids[0], 10);
        assert_null(hint_table_namings(&s, 11, &n));
        assert_int_equal(n, 0);
        /* SetThreads replaces the list, with creation's rules */
        assert_int_equal(hint_table_set_threads(&s, a, (pid_t[]) { 20, 20 }, 2), -EINVAL);
        assert_int_equal(a->n_tids, 1);
        assert_int_equal(hint_table_set_threads(&s, a, (pid_t[]) { 20, 21, 12 }, 3), 0);
        assert_int_equal(hint_table_thread_output(&s, 10, T, &out), -ENOENT);
        assert_int_equal(hint_table_thread_output(&s, 12, T, &out), 0);
        assert_int_equal(out, c.high);
        /* a turns stale 10 targets after its creation, b 10 after its
         * report: then 12 runs at the low bound */
        assert_int_equal(hint_table_next_change(&s, T), 10 * T);
        assert_int_equal(hint_table_next_change(&s, 10 * T), 11 * T);
        assert_int_equal(hint_table_thread_output(&s, 12, 11 * T - 1, &out), 0);
        assert_int_equal(out, c.high);
        assert_int_equal(hint_table_thread_output(&s, 12, 11 * T, &out), 0);
        assert_int_equal(out, c.low);
        assert_int_equal(hint_table_next_change(&s, 11 * T), 0);
        hint_table_done(&s);
}

static void test_rate_limit(void **state) {
        HintConfig c;
        HintTable s;
        HintSession *x;
        HintWork w = { T, T };
        HintController before;
        uint64_t now = 0;

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        assert_int_equal(hint_table_create(&s, ":1.1", 0, 1, (pid_t[]) { 10 }, 1, T, now, &x), 0);
        /* a burst of 10, then nothing until the bucket refills */
        for (unsigned i = 0; i < HINT_REPORT_BURST; i++)
                assert_int_equal(hint_table_report(&s, x, &w, 1, now), 0);
        before = x->ctl;
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), -EBUSY);
        assert_int_equal(hint_table_report(&s, x, &w, 1, now + HINT_REPORT_INTERVAL_NS - 1), -EBUSY);
        assert_memory_equal(&x->ctl, &before, sizeof(before));
        /* one report per interval from then on */
        now += HINT_REPORT_INTERVAL_NS;
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), 0);
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), -EBUSY);
        /* a bad report costs nothing */
        now += 3 * HINT_REPORT_INTERVAL_NS;
        assert_int_equal(hint_table_report(&s, x, &w, 0, now), -EINVAL);
        for (unsigned i = 0; i < 3; i++)
                assert_int_equal(hint_table_report(&s, x, &w, 1, now), 0);
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), -EBUSY);
        /* a long pause refills the whole bucket, no more */
        now += 1000 * HINT_REPORT_INTERVAL_NS;
        for (unsigned i = 0; i < HINT_REPORT_BURST; i++)
                assert_int_equal(hint_table_report(&s, x, &w, 1, now), 0);
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), -EBUSY);
        hint_table_done(&s);
}

/* One bucket per client for all its sessions, kept when it closes and
 * reopens them; another client has its own; a bucket that is full again
 * with no session left goes. */
static void test_one_bucket_per_client(void **state) {
        HintConfig c;
        HintTable s;
        HintSession *x, *y, *z;
        HintWork w = { T, T };
        uint64_t now = 0;

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        assert_int_equal(hint_table_create(&s, ":1.1", 1000, 1, (pid_t[]) { 10 }, 1, T, now, &x), 0);
        assert_int_equal(hint_table_create(&s, ":1.1", 1000, 1, (pid_t[]) { 11 }, 1, T, now, &y), 0);
        assert_int_equal(hint_table_create(&s, ":1.2", 1000, 2, (pid_t[]) { 12 }, 1, T, now, &z), 0);
        /* alternating two sessions: 10 in all */
        for (unsigned i = 0; i < HINT_REPORT_BURST; i++)
                assert_int_equal(hint_table_report(&s, i % 2 ? y : x, &w, 1, now), 0);
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), -EBUSY);
        assert_int_equal(hint_table_report(&s, y, &w, 1, now), -EBUSY);
        assert_int_equal(hint_table_may_call(&s, ":1.1", now), -EBUSY);
        /* closing both and opening again: the same empty bucket */
        assert_int_equal(hint_table_close(&s, x->id, ":1.1", NULL), 0);
        assert_int_equal(hint_table_close(&s, y->id, ":1.1", NULL), 0);
        assert_int_equal(hint_table_create(&s, ":1.1", 1000, 1, (pid_t[]) { 10 }, 1, T, now, &x), 0);
        assert_int_equal(hint_table_report(&s, x, &w, 1, now), -EBUSY);
        /* the other client's is its own */
        assert_int_equal(hint_table_report(&s, z, &w, 1, now), 0);
        /* a call that fails costs nothing; spend() takes one */
        now += HINT_REPORT_INTERVAL_NS;
        assert_int_equal(hint_table_report(&s, x, &w, 0, now), -EINVAL);
        assert_int_equal(hint_table_may_call(&s, ":1.1", now), 0);
        hint_table_spend(&s, ":1.1");
        assert_int_equal(hint_table_may_call(&s, ":1.1", now), -EBUSY);
        /* with no session, a bucket goes once it is full again */
        assert_int_equal(hint_table_close(&s, x->id, ":1.1", NULL), 0);
        assert_int_equal(s.n_clients, 2);
        now += HINT_REPORT_BURST * HINT_REPORT_INTERVAL_NS;
        assert_int_equal(hint_table_may_call(&s, ":1.2", now), 0);
        assert_int_equal(s.n_clients, 1);
        hint_table_done(&s);
}

/* Which sessions name a thread, through the index, as sessions come, go
 * and change their threads. */
static void test_namings(void **state) {
        HintConfig c;
        HintTable s;
        HintSession *x, *y;
        const HintNaming *e;
        unsigned out;
        size_t n;

        (void) state;
        hint_config_init(&c);
        hint_table_init(&s, &c);
        assert_int_equal(hint_table_create(&s, ":1.1", 1000, 1, (pid_t[]) { 30, 10, 20 }, 3, T, 0, &x), 0);
        assert_int_equal(hint_table_create(&s, ":1.2", 1000, 2, (pid_t[]) { 20, 40 }, 2, T, 0, &y), 0);
        e = hint_table_namings(&s, 20, &n);
        assert_int_equal(n, 2);
        assert_true((e[0].x == x && e[1].x == y) || (e[0].x == y && e[1].x == x));
        assert_null(hint_table_namings(&s, 25, &n));
        assert_int_equal(n, 0);
        assert_int_equal(hint_table_thread_output(&s, 40, 0, &out), 0);
        assert_int_equal(hint_table_thread_output(&s, 50, 0, &out), -ENOENT);
        assert_int_equal(hint_table_thread_index(x, 20), 2);
        hint_table_drop_thread(&s, x, hint_table_thread_index(x, 20));
        e = hint_table_namings(&s, 20, &n);
        assert_int_equal(n, 1);
        assert_ptr_equal(e[0].x, y);
        assert_int_equal(hint_table_set_threads(&s, y, (pid_t[]) { 50 }, 1), 0);
        assert_null(hint_table_namings(&s, 20, &n));
        assert_int_equal(hint_table_thread_output(&s, 50, 0, &out), 0);
        assert_int_equal(hint_table_close(&s, y->id, NULL, NULL), 0);
        assert_int_equal(hint_table_thread_output(&s, 50, 0, &out), -ENOENT);
        assert_int_equal(s.n_index, 2);
        hint_table_done(&s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_create_close),
                cmocka_unit_test(test_one_bucket_per_client),
                cmocka_unit_test(test_namings),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_threads_and_largest_output),
                cmocka_unit_test(test_rate_limit),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
