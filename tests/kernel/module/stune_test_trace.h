/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the SchedTune test module: what SchedTune's bare
 * tracepoints report, printed as key=value pairs for the guest tests.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM stune_test

#if !defined(_STUNE_TEST_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _STUNE_TEST_TRACE_H

#include <linux/tracepoint.h>

/* sched_tune_config_tp: the boost of group @idx (0: root) was set. */
TRACE_EVENT(sched_tune_config,
	TP_PROTO(int idx, unsigned int boost),
	TP_ARGS(idx, boost),
	TP_STRUCT__entry(
		__field(int, idx)
		__field(unsigned int, boost)
	),
	TP_fast_assign(
		__entry->idx = idx;
		__entry->boost = boost;
	),
	TP_printk("idx=%d boost=%u", __entry->idx, __entry->boost)
);

/* sched_tune_cpu_boost_tp: the boost of a CPU changed. */
TRACE_EVENT(sched_tune_cpu_boost,
	TP_PROTO(int cpu, unsigned int boost),
	TP_ARGS(cpu, boost),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(unsigned int, boost)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->boost = boost;
	),
	TP_printk("cpu=%d boost=%u", __entry->cpu, __entry->boost)
);

/* sched_tune_tasks_update_tp: a group's RUNNABLE tasks on a CPU. */
TRACE_EVENT(sched_tune_tasks_update,
	TP_PROTO(int cpu, int idx, unsigned int tasks, unsigned int boost,
		 unsigned int max_boost),
	TP_ARGS(cpu, idx, tasks, boost, max_boost),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(int, idx)
		__field(unsigned int, tasks)
		__field(unsigned int, boost)
		__field(unsigned int, max_boost)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->idx = idx;
		__entry->tasks = tasks;
		__entry->boost = boost;
		__entry->max_boost = max_boost;
	),
	TP_printk("cpu=%d idx=%d tasks=%u boost=%u max_boost=%u",
		  __entry->cpu, __entry->idx, __entry->tasks, __entry->boost,
		  __entry->max_boost)
);

/*
 * sched_tune_boost_util_tp: a CPU's boosted CFS utilization; @pid is the
 * waking task whose boost counts in an energy estimate, -1 for none (and
 * on a series before its energy patch, whose tracepoint has no task).
 */
TRACE_EVENT(sched_tune_boost_util,
	TP_PROTO(int cpu, unsigned long util, unsigned long cap,
		 unsigned int boost, unsigned long margin, pid_t pid),
	TP_ARGS(cpu, util, cap, boost, margin, pid),
	TP_STRUCT__entry(
		__field(int, cpu)
		__field(unsigned long, util)
		__field(unsigned long, cap)
		__field(unsigned int, boost)
		__field(unsigned long, margin)
		__field(pid_t, pid)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->util = util;
		__entry->cap = cap;
		__entry->boost = boost;
		__entry->margin = margin;
		__entry->pid = pid;
	),
	TP_printk("cpu=%d util=%lu cap=%lu boost=%u margin=%lu pid=%d",
		  __entry->cpu, __entry->util, __entry->cap, __entry->boost,
		  __entry->margin, __entry->pid)
);

#endif /* _STUNE_TEST_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE stune_test_trace
#include <trace/define_trace.h>
