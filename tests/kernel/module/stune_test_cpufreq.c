// SPDX-License-Identifier: GPL-2.0
/*
 * Test cpufreq driver for the SchedTune tests on QEMU virt.
 *
 * QEMU virt has no frequency scaling, so this driver gives every CPU its own
 * policy from 200 MHz to 2000 MHz with fast switching, so that schedutil
 * drives it straight from the scheduler. It has no frequency table: each
 * CPU "runs" at exactly the frequency schedutil asks for (its util with
 * the 1.25 headroom, clamped to the range), so that a test can tell a
 * boost of 10 from 0 and 75 from 100. Frequencies are bookkeeping only: the
 * emulated CPU runs at the same speed whatever is "set" here, but
 * scaling_cur_freq shows the request and the frequency invariance of the
 * scheduler's signals follows it (unless qemu_speed=1, below).
 *
 * For each CPU it also keeps the root CFS runqueue's util_avg and
 * util_est as the scheduler's PELT and util_est tracepoints last reported
 * them, and with each request the values in force when it was made:
 * /sys/kernel/debug/stune_test_cpufreq/cpuN reads "khz util_avg util_est"
 * of the CPU's last request. The tests compare the frequency with the
 * utilization from this independent source, not from SchedTune's trace.
 *
 * schedutil's rate limit comes from transition_delay_us (module parameter
 * rate_limit_us, 10 ms by default, as 6.1 gives most drivers).
 *
 * It also registers an energy model per policy, so that Energy Aware
 * Scheduling runs on a boot with asymmetric capacities, shaped like a real
 * big.LITTLE SoC's (see stune_test_soc_power()): a light task is cheapest
 * on a small CPU at any OPP.
 *
 * shared=1 makes one policy per pair of CPUs (0-1, 2-3), as a cluster's,
 * instead of one per CPU. debugfs also has "thermal" (write "CPU KHZ": the
 * scheduler's thermal pressure as if a cooling device capped CPU at KHZ)
 * and "sched" (per CPU: misfit_task_load, whether the root domain is
 * overloaded, and the frequency of the thermal pressure set).
 *
 * Two parameters serve the effect benchmark (tests/bench/bench-kernel),
 * which models time and energy from the trace of requests:
 *
 * - cmos_power=1 registers a CMOS-like model instead: power = C f V^2, the
 *   voltage rising from 0.75 V at the lowest OPP to 1.1 V at the highest,
 *   a small CPU drawing a quarter of a big one's power at the same
 *   frequency. Work costs 2.2 times as much energy at the highest OPP as
 *   at the lowest, as on real CPUs, so that a boost has a price. Requests
 *   then resolve up to the next of the model's OPPs, as with a driver
 *   that has a frequency table, so that schedutil (and its rate limit)
 *   sees the frequencies the model prices.
 *
 * - qemu_speed=1 makes the scheduler's signals count what QEMU really runs:
 *   every emulated CPU executes at one speed whatever its frequency and
 *   capacity, so a task that is busy a quarter of the time does the work of
 *   a quarter of a big CPU at its highest OPP. Frequency invariance would
 *   shrink that by f / fmax (and capacity invariance by capacity / 1024),
 *   although the work took no longer; a periodic task's utilization would
 *   then fall with the frequency it causes, down to the lowest OPP. This
 *   registers a frequency-scale source whose factor is 1024 * 1024 /
 *   capacity on every CPU, so that utilization is the work, in the units
 *   a real CPU's invariant signals would give it.
 */

#include <linux/arch_topology.h>
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/debugfs.h>
#include <linux/energy_model.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/uaccess.h>
#include <trace/events/sched.h>

/*
 * The scheduler's own definitions, for struct cfs_rq: 6.1 and 6.12 export the
 * PELT tracepoints but no helper to read what they report.
 */
#include <linux/sched/cputime.h>
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/mmu_context.h>  /* kernel/sched/sched.h uses it from 6.12 */
#endif
#include "kernel/sched/sched.h"

/* The energy model takes microwatts only (see stune_test_register_em()). */
#define STUNE_TEST_EM_UW_ONLY	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0))

#define STUNE_TEST_KHZ_STEP	200000
#define STUNE_TEST_NR_OPPS	10
#define STUNE_TEST_MIN_KHZ	STUNE_TEST_KHZ_STEP
#define STUNE_TEST_MAX_KHZ	(STUNE_TEST_KHZ_STEP * STUNE_TEST_NR_OPPS)

static unsigned int initial_khz = STUNE_TEST_MAX_KHZ;
module_param(initial_khz, uint, 0444);
MODULE_PARM_DESC(initial_khz, "frequency each CPU starts at, in kHz");

static unsigned int rate_limit_us = 10000;
module_param(rate_limit_us, uint, 0444);
MODULE_PARM_DESC(rate_limit_us, "schedutil's rate limit (transition_delay_us)");

static bool cmos_power;
module_param(cmos_power, bool, 0444);
MODULE_PARM_DESC(cmos_power, "register a CMOS-like energy model (P = C f V^2)");

static bool qemu_speed;
module_param(qemu_speed, bool, 0444);
MODULE_PARM_DESC(qemu_speed, "signals count work at the speed QEMU runs, not at the requested frequency");

static bool shared;
module_param(shared, bool, 0444);
MODULE_PARM_DESC(shared, "one policy per pair of CPUs (0-1, 2-3, ...), as big.LITTLE clusters have");

/* Per CPU: its frequency, and the utilization behind its last request. */
struct stune_test_cpu {
	unsigned int khz;
	/* Last reported by the tracepoints. */
	unsigned long util_avg;
	unsigned long util_est;
	/* In force at the last request; req_seq guards the three. */
	seqcount_t req_seq;
	unsigned int req_khz;
	unsigned long req_util_avg;
	unsigned long req_util_est;
	/* The CPU's runqueue, as the PELT tracepoint last reported it. */
	struct rq *rq;
	/* The frequency thermal pressure was last set for; 0 for none. */
	unsigned int capped_khz;
};

static DEFINE_PER_CPU(struct stune_test_cpu, stune_test_cpus);
static struct dentry *stune_test_dir;

/* What cpu_util_cfs() reads: the root CFS runqueue of each CPU. */
static void stune_test_cfs_util(void *data, struct cfs_rq *cfs_rq)
{
	struct rq *rq = rq_of(cfs_rq);
	struct stune_test_cpu *tc;

	if (cfs_rq != &rq->cfs)
		return;
	tc = per_cpu_ptr(&stune_test_cpus, cpu_of(rq));
	WRITE_ONCE(tc->rq, rq);
	WRITE_ONCE(tc->util_avg, READ_ONCE(cfs_rq->avg.util_avg));
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	WRITE_ONCE(tc->util_est, READ_ONCE(cfs_rq->avg.util_est));
#else
	WRITE_ONCE(tc->util_est, READ_ONCE(cfs_rq->avg.util_est.enqueued));
#endif
}

static unsigned int stune_test_set(struct cpufreq_policy *policy,
				   unsigned int khz)
{
	struct stune_test_cpu *tc;
	unsigned long flags;
	unsigned int cpu;

	/* Fast switching comes from interrupts too (the tick). */
	local_irq_save(flags);
	/* policy->cpus: related_cpus is only filled in after ->init(). */
	for_each_cpu(cpu, policy->cpus) {
		tc = per_cpu_ptr(&stune_test_cpus, cpu);
		WRITE_ONCE(tc->khz, khz);
		write_seqcount_begin(&tc->req_seq);
		tc->req_khz = khz;
		tc->req_util_avg = READ_ONCE(tc->util_avg);
		tc->req_util_est = READ_ONCE(tc->util_est);
		write_seqcount_end(&tc->req_seq);
	}
	local_irq_restore(flags);
	return khz;
}

static int stune_test_target(struct cpufreq_policy *policy,
			     unsigned int target_freq, unsigned int relation)
{
	stune_test_set(policy, clamp(target_freq, policy->min, policy->max));
	return 0;
}

/* Exactly the request, within the policy's limits. */
static unsigned int stune_test_fast_switch(struct cpufreq_policy *policy,
					   unsigned int target_freq)
{
	return stune_test_set(policy,
			      clamp(target_freq, policy->min, policy->max));
}

static unsigned int stune_test_get(unsigned int cpu)
{
	return READ_ONCE(per_cpu(stune_test_cpus, cpu).khz);
}

/*
 * cmos_power: a frequency table of the model's OPPs. The core resolves
 * each request to the lowest OPP at or above it, and only a new OPP
 * counts as a change for schedutil's rate limit.
 */
static struct cpufreq_frequency_table stune_test_table[STUNE_TEST_NR_OPPS + 1];

static int stune_test_target_index(struct cpufreq_policy *policy,
				   unsigned int index)
{
	stune_test_set(policy, policy->freq_table[index].frequency);
	return 0;
}

static int stune_test_verify(struct cpufreq_policy_data *policy)
{
	cpufreq_verify_within_cpu_limits(policy);
	return 0;
}

static int stune_test_init(struct cpufreq_policy *policy)
{
	unsigned int first = policy->cpu & ~1U;

	/*
	 * One policy per CPU, which the core has set in policy->cpus already,
	 * or with shared=1 one per pair of CPUs, as a cluster's.
	 */
	if (shared) {
		cpumask_clear(policy->cpus);
		cpumask_set_cpu(first, policy->cpus);
		if (first + 1 < nr_cpu_ids && cpu_possible(first + 1))
			cpumask_set_cpu(first + 1, policy->cpus);
	}
	policy->cpuinfo.min_freq = STUNE_TEST_MIN_KHZ;
	policy->cpuinfo.max_freq = STUNE_TEST_MAX_KHZ;
	policy->min = STUNE_TEST_MIN_KHZ;
	policy->max = STUNE_TEST_MAX_KHZ;
	policy->cpuinfo.transition_latency = 100 * NSEC_PER_USEC;
	policy->transition_delay_us = rate_limit_us;
	policy->fast_switch_possible = true;
	if (cmos_power)
		policy->freq_table = stune_test_table;
	policy->cur = stune_test_set(policy, clamp(initial_khz,
						   STUNE_TEST_MIN_KHZ,
						   STUNE_TEST_MAX_KHZ));
	return 0;
}

/*
 * The default energy model is shaped like a real big.LITTLE SoC's: the
 * dynamic power P = C * f * V^2 with the dynamic-power-coefficient C of
 * mainline's Juno r0 device tree (530 for the Cortex-A57s, 140 for the
 * Cortex-A53s) and the voltage rising linearly from 800 mV at the lowest
 * OPP to 1000 mV at the highest, as Juno's OPP tables do. A unit of work
 * on a small CPU (capacity 512) then costs about half of what it costs on
 * a big one at the same OPP and less than on a big one at its lowest OPP
 * even at the small CPU's highest: EAS keeps light tasks on small CPUs
 * whatever their boost, unless the boost's price differs between the
 * candidates. Strictly rising costs: no OPP is marked inefficient.
 * Powers are in an abstract scale.
 */
#define STUNE_TEST_COEF_BIG		530UL
#define STUNE_TEST_COEF_SMALL		140UL
#define STUNE_TEST_SOC_MIN_MV		800UL
#define STUNE_TEST_SOC_MAX_MV		1000UL

static unsigned long stune_test_soc_power(bool small, int i)
{
	unsigned long mhz = (i + 1) * STUNE_TEST_KHZ_STEP / 1000;
	unsigned long mv = STUNE_TEST_SOC_MIN_MV +
			   (STUNE_TEST_SOC_MAX_MV - STUNE_TEST_SOC_MIN_MV) *
			   i / (STUNE_TEST_NR_OPPS - 1);

	return (small ? STUNE_TEST_COEF_SMALL : STUNE_TEST_COEF_BIG) * mhz *
	       mv * mv / 1000000;
}

/*
 * cmos_power: microwatts at the highest OPP of a big and of a small CPU,
 * and the voltage in millivolts at the lowest and the highest OPP.
 */
#define STUNE_TEST_CMOS_BIG_UW		1000000UL
#define STUNE_TEST_CMOS_SMALL_UW	250000UL
#define STUNE_TEST_CMOS_MIN_MV		750UL
#define STUNE_TEST_CMOS_MAX_MV		1100UL

/* P = Pmax * f / fmax * (V / Vmax)^2 at OPP i, V linear in i. */
static unsigned long stune_test_cmos_power(bool small, int i)
{
	unsigned long pmax = small ? STUNE_TEST_CMOS_SMALL_UW :
				     STUNE_TEST_CMOS_BIG_UW;
	unsigned long mv = STUNE_TEST_CMOS_MIN_MV +
			   (STUNE_TEST_CMOS_MAX_MV - STUNE_TEST_CMOS_MIN_MV) *
			   i / (STUNE_TEST_NR_OPPS - 1);

	return pmax * (i + 1) / STUNE_TEST_NR_OPPS * mv / STUNE_TEST_CMOS_MAX_MV *
	       mv / STUNE_TEST_CMOS_MAX_MV;
}

static int stune_test_active_power(struct device *dev, unsigned long *power,
				   unsigned long *khz)
{
	bool small = topology_get_cpu_scale(dev->id) < SCHED_CAPACITY_SCALE;
	unsigned long f;
	int i;

	for (i = 0; i < STUNE_TEST_NR_OPPS; i++) {
		f = (i + 1) * STUNE_TEST_KHZ_STEP;
		if (f >= *khz)
			break;
	}
	if (i == STUNE_TEST_NR_OPPS)
		return -EINVAL;
	*khz = f;
	if (cmos_power)
		*power = stune_test_cmos_power(small, i);
	else
		*power = stune_test_soc_power(small, i);
	return 0;
}

static void stune_test_register_em(struct cpufreq_policy *policy)
{
	struct em_data_callback em_cb = EM_DATA_CB(stune_test_active_power);

	/*
	 * The CMOS-like model's powers are in microwatts. 6.12's energy model
	 * takes nothing else ("EM: only supports uW power values"): there the
	 * SoC model's abstract scale is registered as microwatts, which
	 * changes no decision, EAS comparing relative costs only.
	 */
	em_dev_register_perf_domain(get_cpu_device(policy->cpu),
				    STUNE_TEST_NR_OPPS, &em_cb,
				    policy->related_cpus,
				    cmos_power || STUNE_TEST_EM_UW_ONLY);
}

/* ->exit returns nothing from 6.11 on. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define EXIT_RET void
#define EXIT_OK
#else
#define EXIT_RET int
#define EXIT_OK 0
#endif

static EXIT_RET stune_test_exit(struct cpufreq_policy *policy)
{
	policy->fast_switch_possible = false;
	return EXIT_OK;
}

static struct cpufreq_driver stune_test_driver = {
	.name		= "stune-test",
	.init		= stune_test_init,
	.exit		= stune_test_exit,
	.verify		= stune_test_verify,
	.target		= stune_test_target,
	.fast_switch	= stune_test_fast_switch,
	.get		= stune_test_get,
	.register_em	= stune_test_register_em,
};

/*
 * qemu_speed: utilization counts work at QEMU's one speed. The factor is
 * constant; the tick writes it again, as a counter-based source would.
 */
static void stune_test_speed_tick(void)
{
	int cpu = smp_processor_id();

	this_cpu_write(arch_freq_scale, SCHED_CAPACITY_SCALE *
		       SCHED_CAPACITY_SCALE / topology_get_cpu_scale(cpu));
}

/*
 * Registered as the CPPC source, which QEMU's virt machine has not. An
 * architectural (AMU) source would take precedence on the CPUs it covers;
 * the emulated cortex-a57 has none.
 */
static struct scale_freq_data stune_test_speed = {
	.source		= SCALE_FREQ_SOURCE_CPPC,
	.set_freq_scale	= stune_test_speed_tick,
};

static void stune_test_speed_start(void)
{
	int cpu;

	if (!qemu_speed)
		return;
	/* With a source registered cpufreq no longer sets the factor. */
	topology_set_scale_freq_source(&stune_test_speed, cpu_possible_mask);
	for_each_possible_cpu(cpu)
		per_cpu(arch_freq_scale, cpu) = SCHED_CAPACITY_SCALE *
			SCHED_CAPACITY_SCALE / topology_get_cpu_scale(cpu);
}

static void stune_test_speed_stop(void)
{
	int cpu;

	if (!qemu_speed)
		return;
	topology_clear_scale_freq_source(SCALE_FREQ_SOURCE_CPPC,
					 cpu_possible_mask);
	/* cpufreq sets it again at its next frequency change. */
	for_each_possible_cpu(cpu)
		per_cpu(arch_freq_scale, cpu) = SCHED_CAPACITY_SCALE;
}

static int stune_test_req_show(struct seq_file *m, void *v)
{
	struct stune_test_cpu *tc = m->private;
	unsigned long util_avg, util_est;
	unsigned int khz, seq;

	do {
		seq = read_seqcount_begin(&tc->req_seq);
		khz = tc->req_khz;
		util_avg = tc->req_util_avg;
		util_est = tc->req_util_est;
	} while (read_seqcount_retry(&tc->req_seq, seq));
	seq_printf(m, "%u %lu %lu\n", khz, util_avg, util_est);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stune_test_req);

/*
 * /sys/kernel/debug/stune_test_cpufreq/thermal: write "CPU KHZ" to cap CPU's
 * frequency at KHZ for the scheduler's thermal pressure, as a cpufreq
 * cooling device would (KHZ at or above fmax: no pressure). The frequency
 * requests are not capped: only the capacity the scheduler sees shrinks.
 */
static ssize_t stune_test_thermal_write(struct file *file,
					const char __user *ubuf, size_t len,
					loff_t *ppos)
{
	unsigned int cpu, khz;
	char buf[32];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%u %u", &cpu, &khz) != 2 || cpu >= nr_cpu_ids ||
	    !cpu_possible(cpu))
		return -EINVAL;
	khz = min_t(unsigned int, khz, STUNE_TEST_MAX_KHZ);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	topology_update_hw_pressure(cpumask_of(cpu), khz);
#else
	topology_update_thermal_pressure(cpumask_of(cpu), khz);
#endif
	WRITE_ONCE(per_cpu(stune_test_cpus, cpu).capped_khz, khz);
	return len;
}

static const struct file_operations stune_test_thermal_fops = {
	.write	= stune_test_thermal_write,
	.llseek	= noop_llseek,
};

/*
 * /sys/kernel/debug/stune_test_cpufreq/sched: per CPU, the load of the
 * misfit task its runqueue last recorded and whether its root domain is
 * overloaded and overutilized (EAS off), as the scheduler keeps them (a
 * test reads what placement concluded, not SchedTune's own numbers), and
 * the frequency its thermal pressure was last set for (0: none set).
 */
static int stune_test_sched_show(struct seq_file *m, void *v)
{
	struct rq *rq;
	int cpu;

	for_each_possible_cpu(cpu) {
		rq = READ_ONCE(per_cpu(stune_test_cpus, cpu).rq);
		if (!rq)
			continue;
		rcu_read_lock_sched();
		seq_printf(m, "cpu%d misfit=%lu overload=%d overutilized=%d capped_khz=%u\n",
			   cpu, READ_ONCE(rq->misfit_task_load),
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
			   READ_ONCE(rq->rd->overloaded),
#else
			   READ_ONCE(rq->rd->overload),
#endif
			   READ_ONCE(rq->rd->overutilized),
			   READ_ONCE(per_cpu(stune_test_cpus, cpu).capped_khz));
		rcu_read_unlock_sched();
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stune_test_sched);

static int __init stune_test_cpufreq_init(void)
{
	char name[16];
	int cpu, ret, i;

	for_each_possible_cpu(cpu)
		seqcount_init(&per_cpu(stune_test_cpus, cpu).req_seq);
	ret = register_trace_pelt_cfs_tp(stune_test_cfs_util, NULL);
	if (ret)
		return ret;
	ret = register_trace_sched_util_est_cfs_tp(stune_test_cfs_util, NULL);
	if (ret)
		goto err_pelt;
	stune_test_dir = debugfs_create_dir("stune_test_cpufreq", NULL);
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		debugfs_create_file(name, 0444, stune_test_dir,
				    per_cpu_ptr(&stune_test_cpus, cpu),
				    &stune_test_req_fops);
	}
	debugfs_create_file("thermal", 0200, stune_test_dir, NULL,
			    &stune_test_thermal_fops);
	debugfs_create_file("sched", 0444, stune_test_dir, NULL,
			    &stune_test_sched_fops);
	stune_test_speed_start();
	if (cmos_power) {
		for (i = 0; i < STUNE_TEST_NR_OPPS; i++)
			stune_test_table[i].frequency = (i + 1) * STUNE_TEST_KHZ_STEP;
		stune_test_table[i].frequency = CPUFREQ_TABLE_END;
		stune_test_driver.target_index = stune_test_target_index;
	}
	ret = cpufreq_register_driver(&stune_test_driver);
	if (ret)
		goto err_est;
	return 0;

err_est:
	stune_test_speed_stop();
	debugfs_remove_recursive(stune_test_dir);
	unregister_trace_sched_util_est_cfs_tp(stune_test_cfs_util, NULL);
err_pelt:
	unregister_trace_pelt_cfs_tp(stune_test_cfs_util, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}
module_init(stune_test_cpufreq_init);

static void __exit stune_test_cpufreq_exit(void)
{
	cpufreq_unregister_driver(&stune_test_driver);
	stune_test_speed_stop();
	debugfs_remove_recursive(stune_test_dir);
	unregister_trace_sched_util_est_cfs_tp(stune_test_cfs_util, NULL);
	unregister_trace_pelt_cfs_tp(stune_test_cfs_util, NULL);
	tracepoint_synchronize_unregister();
}
module_exit(stune_test_cpufreq_exit);

MODULE_DESCRIPTION("Test cpufreq driver with exact requests for SchedTune tests");
MODULE_LICENSE("GPL");
