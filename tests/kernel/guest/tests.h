/* SPDX-License-Identifier: GPL-2.0 */
/* SchedTune guest tests: every test function. */
#ifndef STUNE_TESTS_H
#define STUNE_TESTS_H

int test_sysctl_default(void);
int test_sysctl_range(void);
int test_sysctl_bad_writes(void);
int test_cgroup_listed(void);
int test_cgroup_mount(void);
int test_root_is_sysctl(void);
int test_cgroup_boost_range(void);
int test_cgroup_bad_writes(void);
int test_cgroup_no_grandchild(void);
int test_cgroup_group_limit(void);
int test_debugfs_format(void);
int test_tracepoints_format(void);
int test_cpufreq_driver(void);
int test_freq_baseline_root(void);
int test_freq_baseline_uclamp(void);
int test_cpu_boost_runnable(void);
int test_cpu_boost_max_wins(void);
int test_cpu_boost_group_write(void);
int test_cpu_boost_move_runnable(void);
int test_cpu_boost_migrate(void);
int test_trace_config_events(void);
int test_freq_boost_0(void);
int test_freq_boost_100(void);
int test_freq_boost_10(void);
int test_freq_boost_30(void);
int test_freq_boost_50(void);
int test_freq_boost_70(void);
int test_freq_boost_75(void);
int test_freq_back_to_root(void);
int test_freq_after_exit(void);
int test_freq_max_wins(void);
int test_freq_sleeper_no_boost(void);
int test_trace_boost_util_ramp(void);
int test_stress(void);
int test_asym_capacity(void);
int test_asym_little_boost_100(void);
int test_asym_little_boost_50(void);
int test_asym_trace_little(void);
int test_key_off_until_boost(void);
int test_save_restore_keeps_count(void);
int test_class_switch(void);
int test_threadgroup_attach(void);
int test_wakeup_response_local(void);
int test_wakeup_response_remote(void);
int test_bench_response_group(void);
int test_bench_response_uclamp(void);
int test_asym_eas_task_boost(void);
int test_hotplug_counted(void);
int test_pi_boosted_holder(void);
int test_throttled_keeps_boost(void);

#endif
