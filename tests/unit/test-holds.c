/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hold bookkeeping and expiry with an explicit clock. */
#include "tests.h"

#include "holds.h"

static void test_add_release(void **state) {
        Holds h;
        Hold *x = NULL;
        void *ud = (void *) 1;

        (void) state;
        holds_init(&h, 4);
        assert_int_equal(holds_add(&h, 7, "interactive", 30, 0, ":1.5", 1000, "scroll", &x), 0);
        assert_non_null(x);
        x->userdata = (void *) 0x42;
        assert_int_equal(holds_max_for_group(&h, "interactive"), 30);
        assert_int_equal(holds_max_for_group(&h, "performance"), 0);
        assert_int_equal(holds_add(&h, 8, "interactive", 50, 0, ":1.6", 0, NULL, NULL), 0);
        assert_int_equal(holds_max_for_group(&h, "interactive"), 50);

        /* only the owner may release; unknown cookies are -ENOENT */
        assert_int_equal(holds_release(&h, 7, ":1.6", &ud), -EPERM);
        assert_int_equal(holds_release(&h, 7, NULL, &ud), -EPERM);
        assert_int_equal(holds_release(&h, 99, ":1.5", &ud), -ENOENT);
        assert_int_equal(holds_release(&h, 7, ":1.5", &ud), 0);
        assert_ptr_equal(ud, (void *) 0x42);
        assert_int_equal(holds_release(&h, 7, ":1.5", &ud), -ENOENT);
        assert_int_equal(h.n, 1);
        holds_done(&h);
        assert_int_equal(h.n, 0);
}

static void test_bad_arguments(void **state) {
        Holds h;
        char reason[HOLD_REASON_MAX + 2];

        (void) state;
        holds_init(&h, 4);
        assert_int_equal(holds_add(&h, 1, "g", 101, 0, ":1.1", 0, "", NULL), -EINVAL);
        assert_int_equal(holds_add(&h, 0, "g", 10, 0, ":1.1", 0, "", NULL), -EINVAL);
        assert_int_equal(holds_add(&h, 1, NULL, 10, 0, ":1.1", 0, "", NULL), -EINVAL);
        assert_int_equal(holds_add(&h, 1, "g", 10, 0, NULL, 0, "", NULL), -EINVAL);
        memset(reason, 'x', sizeof(reason) - 1);
        reason[sizeof(reason) - 1] = '\0';
        assert_int_equal(holds_add(&h, 1, "g", 10, 0, ":1.1", 0, reason, NULL), -EINVAL);
        /* a control character would forge a log line */
        assert_int_equal(holds_add(&h, 1, "g", 10, 0, ":1.1", 0, "x\n<0>y", NULL), -EINVAL);
        assert_int_equal(holds_add(&h, 1, "g", 10, 0, ":1.1", 0, "tab\there", NULL), -EINVAL);
        assert_int_equal(holds_add(&h, 1, "g", 10, 0, ":1.1", 0, "", NULL), 0);
        assert_int_equal(holds_add(&h, 1, "g", 10, 0, ":1.2", 0, "", NULL), -EEXIST);
        assert_int_equal(h.n, 1);
        holds_done(&h);
}

static void test_per_owner_limit(void **state) {
        Holds h;

        (void) state;
        holds_init(&h, 3);
        for (uint32_t i = 1; i <= 3; i++)
                assert_int_equal(holds_add(&h, i, "g", 10, 0, ":1.1", 0, "", NULL), 0);
        assert_int_equal(holds_add(&h, 4, "g", 10, 0, ":1.1", 0, "", NULL), -EUSERS);
        assert_int_equal(holds_count_owner(&h, ":1.1"), 3);
        /* another client has its own budget */
        assert_int_equal(holds_add(&h, 5, "g", 10, 0, ":1.2", 0, "", NULL), 0);
        assert_int_equal(holds_release(&h, 2, ":1.1", NULL), 0);
        assert_int_equal(holds_add(&h, 6, "g", 10, 0, ":1.1", 0, "", NULL), 0);
        holds_done(&h);
}

/* One user with many connections cannot take the whole table; root can. */
static void test_per_uid_limit(void **state) {
        Holds h;
        char owner[32];

        (void) state;
        holds_init(&h, 1);
        for (uint32_t i = 1; i <= HOLDS_PER_UID_MAX; i++) {
                snprintf(owner, sizeof(owner), ":1.%u", i);
                assert_int_equal(holds_add(&h, i, "g", 1, 0, owner, 1000, "", NULL), 0);
        }
        assert_int_equal(holds_add(&h, 1000, "g", 1, 0, ":2.1", 1000, "", NULL), -EUSERS);
        assert_int_equal(holds_add(&h, 1001, "g", 1, 0, ":2.2", 1001, "", NULL), 0);
        assert_int_equal(holds_add(&h, 1002, "g", 1, 0, ":2.3", 0, "", NULL), 0);
        assert_int_equal(holds_release(&h, 1, ":1.1", NULL), 0);
        assert_int_equal(holds_add(&h, 1003, "g", 1, 0, ":2.1", 1000, "", NULL), 0);
        holds_done(&h);
}

static void test_global_limit(void **state) {
        Holds h;
        char owner[32];

        (void) state;
        holds_init(&h, 1);
        for (uint32_t i = 1; i <= HOLDS_MAX; i++) {
                snprintf(owner, sizeof(owner), ":1.%u", i);
                assert_int_equal(holds_add(&h, i, "g", 1, 0, owner, 0, "", NULL), 0);
        }
        assert_int_equal(holds_add(&h, 9999, "g", 1, 0, ":2.1", 0, "", NULL), -EUSERS);
        holds_done(&h);
}

static void test_expiry(void **state) {
        Holds h;

        (void) state;
        holds_init(&h, 8);
        assert_int_equal(holds_next_deadline(&h), 0);
        assert_int_equal(holds_add(&h, 1, "a", 10, 5000, ":1.1", 0, "", NULL), 0);
        assert_int_equal(holds_add(&h, 2, "a", 20, 2000, ":1.1", 0, "", NULL), 0);
        assert_int_equal(holds_add(&h, 3, "a", 30, 0, ":1.1", 0, "", NULL), 0);
        assert_int_equal(holds_next_deadline(&h), 2000);

        assert_int_equal(holds_find_expired(&h, 1999), -ENOENT);
        assert_int_equal(holds_find_expired(&h, 2000), 1);
        holds_remove_at(&h, 1);
        assert_int_equal(holds_next_deadline(&h), 5000);
        assert_int_equal(holds_max_for_group(&h, "a"), 30);
        assert_int_equal(holds_find_expired(&h, 4999), -ENOENT);
        assert_int_equal(holds_find_expired(&h, 1000000), 0);
        holds_remove_at(&h, 0);
        /* no deadline never expires */
        assert_int_equal(holds_find_expired(&h, UINT64_MAX), -ENOENT);
        assert_int_equal(holds_next_deadline(&h), 0);
        holds_remove_at(&h, 5);         /* out of range: no-op */
        assert_int_equal(h.n, 1);
        holds_done(&h);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_add_release),
                cmocka_unit_test(test_bad_arguments),
                cmocka_unit_test(test_per_owner_limit),
                cmocka_unit_test(test_per_uid_limit),
                cmocka_unit_test(test_global_limit),
                cmocka_unit_test(test_expiry),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
