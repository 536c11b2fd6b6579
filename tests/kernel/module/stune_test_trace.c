// SPDX-License-Identifier: GPL-2.0
/*
 * SchedTune's tracepoints for the guest tests.
 *
 * SchedTune has bare tracepoints (DECLARE_TRACE in
 * include/trace/events/sched.h), which tracefs does not show. This module
 * attaches a probe to each and re-emits what it reports as a trace event
 * of its own (events/stune_test/), as LISA's sched_tp module does for the
 * PELT tracepoints, so that a test reads them from the trace buffer.
 * Loading it fails if the kernel does not export the tracepoints.
 *
 * The series' energy patch adds the waking task to
 * sched_tune_boost_util_tp; Kbuild defines STUNE_BOOST_UTIL_TASK when the
 * kernel's declaration has it, so that the module builds on the series
 * before that patch too (the benchmarks boot such a kernel).
 */

#include <linux/module.h>
#include <linux/sched.h>
#include <trace/events/sched.h>

#define CREATE_TRACE_POINTS
#include "stune_test_trace.h"

static void probe_config(void *data, int idx, unsigned int boost)
{
	trace_sched_tune_config(idx, boost);
}

static void probe_cpu_boost(void *data, int cpu, unsigned int boost)
{
	trace_sched_tune_cpu_boost(cpu, boost);
}

static void probe_tasks_update(void *data, int cpu, int idx,
			       unsigned int tasks, unsigned int boost,
			       unsigned int max_boost)
{
	trace_sched_tune_tasks_update(cpu, idx, tasks, boost, max_boost);
}

#ifdef STUNE_BOOST_UTIL_TASK
static void probe_boost_util(void *data, int cpu, unsigned long util,
			     unsigned long cap, unsigned int boost,
			     unsigned long margin, struct task_struct *p)
{
	trace_sched_tune_boost_util(cpu, util, cap, boost, margin,
				    p ? p->pid : -1);
}
#else
static void probe_boost_util(void *data, int cpu, unsigned long util,
			     unsigned long cap, unsigned int boost,
			     unsigned long margin)
{
	trace_sched_tune_boost_util(cpu, util, cap, boost, margin, -1);
}
#endif

static void stune_test_trace_unregister(void)
{
	unregister_trace_sched_tune_config_tp(probe_config, NULL);
	unregister_trace_sched_tune_cpu_boost_tp(probe_cpu_boost, NULL);
	unregister_trace_sched_tune_tasks_update_tp(probe_tasks_update, NULL);
	unregister_trace_sched_tune_boost_util_tp(probe_boost_util, NULL);
	tracepoint_synchronize_unregister();
}

static int __init stune_test_trace_init(void)
{
	int ret;

	ret = register_trace_sched_tune_config_tp(probe_config, NULL);
	if (!ret)
		ret = register_trace_sched_tune_cpu_boost_tp(probe_cpu_boost,
							     NULL);
	if (!ret)
		ret = register_trace_sched_tune_tasks_update_tp(probe_tasks_update,
								NULL);
	if (!ret)
		ret = register_trace_sched_tune_boost_util_tp(probe_boost_util,
							      NULL);
	if (ret) {
		pr_err("stune_test_trace: cannot attach: %d\n", ret);
		stune_test_trace_unregister();
	}
	return ret;
}

static void __exit stune_test_trace_exit(void)
{
	stune_test_trace_unregister();
}

module_init(stune_test_trace_init);
module_exit(stune_test_trace_exit);
MODULE_DESCRIPTION("SchedTune tracepoints as trace events, for tests");
MODULE_LICENSE("GPL");
