// SPDX-License-Identifier: GPL-2.0
/*
 * SchedTune guest tests: the schedtune tracepoints, and the margin the
 * kernel reports against boost * (cap - util) / 100.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stune.h"
#include "tests.h"

/* Value of "key=<number>" in a trace line (key at a word start). */
static int field(const char *line, const char *key, long *ret)
{
	size_t len = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ' || p[-1] == ':') &&
		    p[len] == '=') {
			*ret = strtol(p + len + 1, NULL, 10);
			return 1;
		}
		p += len;
	}
	return 0;
}

/*
 * Next line of a trace for that event, or NULL; *pos moves on. The trace
 * is left as it is (it is scanned once per event), the line is copied.
 */
static char *next_event(char **pos, const char *event)
{
	static char copy[512];
	char *line, *nl, *ev, want[64];
	size_t len;

	snprintf(want, sizeof(want), " %s: ", event);
	while (**pos) {
		line = *pos;
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		*pos = line + len + (nl ? 1 : 0);
		if (line[0] == '#' || len >= sizeof(copy))
			continue;
		memcpy(copy, line, len);
		copy[len] = '\0';
		ev = strstr(copy, want);
		if (ev)
			return ev + strlen(want);
	}
	return NULL;
}

static int trace_all(bool on)
{
	static const char *const events[] = {
		"sched_tune_config", "sched_tune_cpu_boost",
		"sched_tune_tasks_update", "sched_tune_boost_util",
	};
	size_t i;
	int err;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		err = trace_event_enable(events[i], on);
		if (err)
			return fail("cannot %s %s: %s",
				    on ? "enable" : "disable", events[i],
				    strerror(-err));
	}
	return 0;
}

int test_trace_config_events(void)
{
	struct stune_view v;
	const struct stune_group_view *g;
	char *buf, *pos, *ev;
	long idx, boost, cpu, tasks, max_boost;
	int cfg_group = 0, cfg_root = 0, cpu_up = 0, cpu_down = 0;
	int tasks_up = 0, tasks_down = 0, bad_max = 0;
	pid_t pid;

	SETUP_OR_FAIL(stune_reset() || group_make("tr", 0));
	if (stune_view_read(&v))
		return -1;
	g = stune_view_group(&v, "tr");
	if (!g)
		return fail("group tr missing from debugfs");
	trace_all(false);
	if (trace_clear())
		return fail("cannot clear the trace buffer");
	if (trace_all(true))
		return -1;
	group_set_boost("tr", 45);
	write_file(STUNE_SYSCTL, "7");
	pid = spinner_start(2, "tr", 60);
	if (wait_cpu_boost(2, 45, 3.0, &(int){0}))
		return fail("cpu2 never showed boost 45");
	child_kill(pid);
	if (wait_cpu_boost(2, 7, 3.0, &(int){0}))
		return fail("cpu2 never went back to boost 7");
	trace_all(false);
	buf = trace_read();
	if (!buf)
		return fail("cannot read the trace");
	pos = buf;
	while ((ev = next_event(&pos, "sched_tune_config")))
		if (field(ev, "idx", &idx) && field(ev, "boost", &boost)) {
			cfg_group += idx == g->idx && boost == 45;
			cfg_root += idx == 0 && boost == 7;
		}
	pos = buf;
	while ((ev = next_event(&pos, "sched_tune_cpu_boost")))
		if (field(ev, "cpu", &cpu) && field(ev, "boost", &boost) &&
		    cpu == 2) {
			cpu_up += boost == 45;
			cpu_down += boost == 7;
		}
	pos = buf;
	while ((ev = next_event(&pos, "sched_tune_tasks_update")))
		if (field(ev, "cpu", &cpu) && field(ev, "idx", &idx) &&
		    field(ev, "tasks", &tasks) &&
		    field(ev, "max_boost", &max_boost) && idx == g->idx) {
			if (tasks < 0)
				return fail("tasks_update with tasks=%ld", tasks);
			tasks_up += cpu == 2 && tasks == 1;
			tasks_down += cpu == 2 && tasks == 0;
			bad_max += max_boost < 7;
		}
	free(buf);
	info("config group=%d root=%d, cpu_boost up=%d down=%d, tasks up=%d down=%d",
	     cfg_group, cfg_root, cpu_up, cpu_down, tasks_up, tasks_down);
	if (!cfg_group)
		return fail("no sched_tune_config idx=%d boost=45", g->idx);
	if (!cfg_root)
		return fail("no sched_tune_config idx=0 boost=7");
	if (!cpu_up || !cpu_down)
		return fail("sched_tune_cpu_boost cpu=2: %d at 45, %d at 7",
			    cpu_up, cpu_down);
	if (!tasks_up || !tasks_down)
		return fail("sched_tune_tasks_update cpu=2: %d at 1, %d at 0",
			    tasks_up, tasks_down);
	if (bad_max)
		return fail("%d tasks_update events with max_boost below root",
			    bad_max);
	return stune_reset();
}

struct margin_stats {
	int events;
	int boosted;		/* events with boost > 0 */
	int on_cpu;		/* boosted events on the ramp's CPU */
	int saturated;		/* util + margin == cap at boost 100 */
	long min_util, max_util;
};

/*
 * Every sched_tune_boost_util event: util <= cap, the margin exact, the
 * boosted util within cap; cap as the CPU's capacity.
 */
static int check_margins(char *buf, int ramp_cpu, int ramp_boost,
			 struct margin_stats *st)
{
	char *pos = buf, *ev;
	long cpu, util, cap, boost, margin, caps[MAX_CPUS];
	int i;

	for (i = 0; i < MAX_CPUS; i++)
		caps[i] = i < nr_possible_cpus() ? cpu_capacity(i) : -1;
	memset(st, 0, sizeof(*st));
	st->min_util = 1L << 30;
	while ((ev = next_event(&pos, "sched_tune_boost_util"))) {
		if (sscanf(ev, "cpu=%ld util=%ld cap=%ld boost=%ld margin=%ld",
			   &cpu, &util, &cap, &boost, &margin) != 5)
			return fail("cannot parse '%s'", ev);
		st->events++;
		if (boost < 0 || boost > 100)
			return fail("boost out of range: %s", ev);
		if (util > cap)
			return fail("util above cap: %s", ev);
		if (margin != boost * (cap - util) / 100)
			return fail("margin %ld, expected %ld: %s", margin,
				    boost * (cap - util) / 100, ev);
		if (util + margin > cap)
			return fail("boosted util above cap: %s", ev);
		if (cpu < 0 || cpu >= MAX_CPUS || caps[cpu] < 0)
			return fail("bad cpu: %s", ev);
		if (cap != caps[cpu])
			return fail("cap %ld but cpu%ld capacity is %ld: %s",
				    cap, cpu, caps[cpu], ev);
		if (boost > 0)
			st->boosted++;
		if (cpu == ramp_cpu && boost == ramp_boost) {
			st->on_cpu++;
			if (util < st->min_util)
				st->min_util = util;
			if (util > st->max_util)
				st->max_util = util;
			st->saturated += boost == 100 && util + margin == cap;
		}
	}
	return 0;
}

/* Duty cycle rising from 5% to 90% in a boosted group, traced. */
static int ramp(int cpu, int boost, struct margin_stats *st)
{
	struct periodic *p;
	char *buf;
	int rc;

	SETUP_OR_FAIL(stune_reset() || group_make("ramp", boost));
	trace_all(false);
	if (trace_clear())
		return fail("cannot clear the trace buffer");
	rc = trace_event_enable("sched_tune_boost_util", true);
	if (rc)
		return fail("cannot enable sched_tune_boost_util: %s",
			    strerror(-rc));
	p = periodic_new(cpu, 1000, 20000, 5.0, "ramp");
	p->busy_end_us = 18000;
	rc = child_wait(periodic_start(p));
	trace_event_enable("sched_tune_boost_util", false);
	if (rc)
		return fail("ramp task exited with %d", rc);
	buf = trace_read();
	if (!buf)
		return fail("cannot read the trace");
	rc = check_margins(buf, cpu, boost, st);
	free(buf);
	if (rc)
		return rc;
	info("cpu%d boost %d: %d events, %d boosted, %d on the ramp (util %ld..%ld)",
	     cpu, boost, st->events, st->boosted, st->on_cpu, st->min_util,
	     st->max_util);
	if (st->boosted < 20)
		return fail("only %d events with boost > 0", st->boosted);
	if (st->on_cpu < 20)
		return fail("only %d events on cpu%d at boost %d", st->on_cpu,
			    cpu, boost);
	if (st->max_util - st->min_util < 100)
		return fail("util only ranged %ld..%ld on the ramp",
			    st->min_util, st->max_util);
	return 0;
}

int test_asym_trace_little(void)
{
	struct margin_stats st;
	int cpu;

	for (cpu = 0; cpu < nr_online_cpus(); cpu++)
		if (cpu_capacity(cpu) < 1024)
			break;
	if (cpu == nr_online_cpus())
		return fail("no CPU with capacity below 1024");
	if (ramp(cpu, 100, &st))
		return -1;
	if (st.saturated != st.on_cpu)
		return fail("boost 100 on cpu%d: util+margin == cap in only %d of %d events",
			    cpu, st.saturated, st.on_cpu);
	if (ramp(cpu, 30, &st))
		return -1;
	return stune_reset();
}
