/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a boost reaches the CPU, on fake sysfs trees: each driver and
 * governor case, no cpufreq at all, and placement with and without
 * asymmetric capacities. */
#include "tests.h"

#include "reach.h"

#define CPU "sys/devices/system/cpu"

static void policy(const char *root, unsigned n, const char *cpus, const char *driver, const char *governor) {
        char rel[256];

        snprintf(rel, sizeof(rel), CPU "/cpufreq/policy%u", n);
        mkdirs(root, rel);
        snprintf(rel, sizeof(rel), CPU "/cpufreq/policy%u/related_cpus", n);
        write_file(root, rel, "%s\n", cpus);
        snprintf(rel, sizeof(rel), CPU "/cpufreq/policy%u/scaling_driver", n);
        write_file(root, rel, "%s\n", driver);
        snprintf(rel, sizeof(rel), CPU "/cpufreq/policy%u/scaling_governor", n);
        write_file(root, rel, "%s\n", governor);
}

static void capacity(const char *root, unsigned cpu, unsigned cap) {
        char rel[256];

        snprintf(rel, sizeof(rel), CPU "/cpu%u", cpu);
        mkdirs(root, rel);
        snprintf(rel, sizeof(rel), CPU "/cpu%u/cpu_capacity", cpu);
        write_file(root, rel, "%u\n", cap);
}

/* The one policy's verdict and words for driver and governor. */
static void one(const char *driver, const char *governor, bool reaches, const char *words) {
        char *root = tmpdir_new();
        Reach r;

        policy(root, 0, "0 1 2 3", driver, governor);
        assert_int_equal(reach_probe(root, &r), 0);
        assert_int_equal(r.n, 1);
        assert_false(r.no_cpufreq);
        assert_string_equal(r.policies[0].name, "policy0");
        assert_string_equal(r.policies[0].cpus, "0 1 2 3");
        assert_int_equal(r.policies[0].reaches, reaches);
        if (!strstr(r.policies[0].why, words))
                fail_msg("%s/%s: '%s' lacks '%s'", driver, governor, r.policies[0].why, words);
        reach_done(&r);
        tmpdir_free(root);
}

static void test_drivers_and_governors(void **state) {
        (void) state;
        one("cpufreq-dt", "schedutil", true, "schedutil on cpufreq-dt");
        one("intel_cpufreq", "schedutil", true, "schedutil on intel_cpufreq");
        one("amd-pstate", "schedutil", true, "schedutil on amd-pstate");
        one("intel_pstate", "powersave", false, "boot with intel_pstate=passive");
        one("intel_pstate", "performance", false, "intel_pstate in active mode");
        one("amd-pstate-epp", "powersave", false, "amd_pstate=passive");
        one("acpi-cpufreq", "performance", false, "performance governor keeps the highest");
        one("acpi-cpufreq", "powersave", false, "powersave governor keeps the lowest");
        one("cpufreq-dt", "userspace", false, "userspace governor");
        one("acpi-cpufreq", "ondemand", false, "ondemand governor does not see");
}

/* intel_pstate's own word for its mode is used. */
static void test_intel_status(void **state) {
        char *root = tmpdir_new();
        Reach r;

        (void) state;
        policy(root, 0, "0", "intel_pstate", "powersave");
        mkdirs(root, CPU "/intel_pstate");
        write_file(root, CPU "/intel_pstate/status", "active\n");
        assert_int_equal(reach_probe(root, &r), 0);
        assert_non_null(strstr(r.policies[0].why, "intel_pstate in active mode picks the frequency itself"));
        reach_done(&r);
        tmpdir_free(root);
}

/* Several policies, in numeric order, each its own verdict. */
static void test_policies(void **state) {
        char *root = tmpdir_new();
        Reach r;

        (void) state;
        policy(root, 4, "4 5", "cpufreq-dt", "performance");
        policy(root, 0, "0 1 2 3", "cpufreq-dt", "schedutil");
        policy(root, 10, "10", "cpufreq-dt", "schedutil");
        assert_int_equal(reach_probe(root, &r), 0);
        assert_int_equal(r.n, 3);
        assert_string_equal(r.policies[0].name, "policy0");
        assert_string_equal(r.policies[1].name, "policy4");
        assert_string_equal(r.policies[2].name, "policy10");
        assert_true(r.policies[0].reaches);
        assert_false(r.policies[1].reaches);
        reach_done(&r);
        tmpdir_free(root);
}

static void test_no_cpufreq_and_placement(void **state) {
        char *root = tmpdir_new();
        Reach r;

        (void) state;
        /* nothing at all: no cpufreq, nothing to place on */
        assert_int_equal(reach_probe(root, &r), 0);
        assert_true(r.no_cpufreq);
        assert_int_equal(r.n, 0);
        assert_non_null(strstr(r.no_cpufreq_why, "no cpufreq policy"));
        assert_false(r.placement);
        assert_non_null(strstr(r.placement_why, "no cpu_capacity"));
        reach_done(&r);

        /* symmetric capacities */
        for (unsigned c = 0; c < 4; c++)
                capacity(root, c, 1024);
        assert_int_equal(reach_probe(root, &r), 0);
        assert_false(r.placement);
        assert_string_equal(r.placement_why, "every CPU has capacity 1024: placement has nothing to choose");
        reach_done(&r);

        /* big and little */
        capacity(root, 2, 346);
        capacity(root, 3, 346);
        assert_int_equal(reach_probe(root, &r), 0);
        assert_true(r.placement);
        assert_string_equal(r.placement_why,
                            "CPU capacities 346 to 1024: placement can move boosted tasks to bigger CPUs");
        reach_done(&r);
        tmpdir_free(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_drivers_and_governors),
                cmocka_unit_test(test_intel_status),
                cmocka_unit_test(test_policies),
                cmocka_unit_test(test_no_cpufreq_and_placement),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
