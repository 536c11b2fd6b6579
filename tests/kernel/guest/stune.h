/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SchedTune guest tests: shared declarations.
 *
 * Every test is a function returning 0 on success or the value of fail(),
 * which records the reason printed on the test's TEST line.
 */
#ifndef STUNE_H
#define STUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define STUNE_MNT	"/dev/stune"
#define STUNE_SYSCTL	"/proc/sys/kernel/sched_cfs_boost"
#define STUNE_DEBUGFS	"/sys/kernel/debug/sched/schedtune"
#define TRACEFS		"/sys/kernel/tracing"
#define STUNE_MAX_GROUPS 16
#define MAX_CPUS	8
#define MAX_OPPS	16

/* Verdict helpers. */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char fail_reason[512];

/* Fail with the set-up step's own reason, or name the step. */
#define SETUP_OR_FAIL(expr)						\
	do {								\
		if (expr)						\
			return fail_reason[0] ? -1 :			\
			       fail("set-up failed: %s", #expr);	\
	} while (0)

/* Files. */
int read_file(const char *path, char *buf, size_t size);
int write_file(const char *path, const char *val);
int write_file_len(const char *path, const char *val, size_t len);
int read_long(const char *path, long *ret);
int path_exists(const char *path);

/* CPUs and time. */
int nr_possible_cpus(void);
int nr_online_cpus(void);
int pin_to_cpu(int cpu);
double now_s(void);
void spin_us(long us);
void sleep_us(long us);

/* The schedtune controller and its knobs. */
int stune_mount(void);
int stune_reset(void);
char *group_dir(const char *name);
int group_make(const char *name, int boost);
int group_set_boost(const char *name, int boost);
int group_get_boost(const char *name, long *ret);
int group_set_hold(const char *name, long hold_us);
int group_join(const char *name, pid_t pid);
/* The calling task's uclamp.min (0..1024), with sched_setattr(2). */
int set_uclamp_min(int value);
int group_remove(const char *name);

/* The debugfs view: per-CPU boost and per-group RUNNABLE counts. */
struct stune_group_view {
	int idx;
	char name[64];
	int boost;
	int tasks[MAX_CPUS];
	int hold_us;		/* -1 for root, which has none */
	int held[MAX_CPUS];	/* 1 while the group's hold is in force */
};

struct stune_view {
	int used;		/* the static key: 1 once a boost was set, -1 absent */
	int nr_cpus;
	int cpu_boost[MAX_CPUS];
	int nr_groups;
	struct stune_group_view groups[STUNE_MAX_GROUPS + 4];
};

int stune_view_read(struct stune_view *v);
const struct stune_group_view *stune_view_group(const struct stune_view *v,
						const char *name);
int wait_cpu_boost(int cpu, int boost, double timeout_s, int *ret_seen);
int cpu_boost_now(int cpu);
int expect_idle_view(const char *when);

/* cpufreq of the test driver. */
struct opp_table {
	int nr;
	long khz[MAX_OPPS];
};

int opp_table_read(int cpu, struct opp_table *t);
int opp_index(const struct opp_table *t, long khz);
long cpu_cur_khz(int cpu);
long cpu_capacity(int cpu);
long self_util_avg(void);
int expected_opp(const struct opp_table *t, long util, long cap, int boost);
int cpu_request(int cpu, long *khz, long *util);
long expected_khz(long fmin, long fmax, long util, long cap, int boost);
long set_rate_limit(int cpu, long us);
int cpufreq_reload(const char *param);
int with_cpufreq(const char *param, int (*fn)(void));
long driver_sched_field(int cpu, const char *key);
int allow_cpus_join(int first, int last, const char *group);
void rate_limit_path(int cpu, char *path, size_t size);

/* struct sched_attr of sched_setattr(2), up to the utilisation clamps. */
struct stune_sched_attr {
	unsigned int size;
	unsigned int sched_policy;
	unsigned long long sched_flags;
	int sched_nice;
	unsigned int sched_priority;
	unsigned long long sched_runtime, sched_deadline, sched_period;
	unsigned int sched_util_min, sched_util_max;
};

/* A periodic task of low duty cycle, pinned, sampling its own CPU. */
struct sample {
	double t;		/* seconds since the task started */
	long khz;
	long util;
	int cpu_boost;		/* -1 unless sampled */
	int flag;
	/* The CPU's last request, from the test driver: -1 unless read. */
	long req_khz;
	long req_util;		/* max(util_avg, util_est) of the root CFS rq */
};

struct periodic {
	int cpu;
	long busy_us;
	long period_us;
	double seconds;
	const char *group;	/* NULL: root */
	bool sample_boost;	/* also read the debugfs boost of the CPU */
	volatile int *flag;	/* sampled with each sample when set */
	bool owns_flag;		/* set *flag to 1 while busy, 0 after */
	long start_delay_us;
	int uclamp_min;		/* applied when > 0 */
	bool light;		/* sample only the request record: less util */
	/* ramp: busy time grows from busy_us to busy_end_us */
	long busy_end_us;
	int max_samples;
	int nr_samples;
	struct sample *samples;	/* shared memory, max_samples long */
};

struct periodic *periodic_new(int cpu, long busy_us, long period_us,
			      double seconds, const char *group);
pid_t periodic_start(struct periodic *p);
int child_wait(pid_t pid);
void *shared_alloc(size_t size);
pid_t spinner_start(int cpu, const char *group, double seconds);
pid_t sleeper_start(int cpu, const char *group);
void child_kill(pid_t pid);

/* Tracing. trace_event_enable() is for the test module's events/stune_test/. */
int trace_event_enable(const char *event, bool on);
int trace_event_enable_path(const char *system_event, bool on);
int trace_clear(void);
char *trace_read(void);

#endif
