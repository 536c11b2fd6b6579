// SPDX-License-Identifier: GPL-2.0
/*
 * Test cpufreq driver for the SchedTune tests on QEMU virt.
 *
 * QEMU virt has no frequency scaling, so this driver gives every CPU its own
 * policy with a fixed table of operating points (200 MHz to 2000 MHz in
 * 200 MHz steps) and supports fast switching, so that schedutil drives it
 * straight from the scheduler. Frequencies are bookkeeping only: the
 * emulated CPU runs at the same speed whatever is "set" here, but the
 * policy's current frequency (scaling_cur_freq) shows what schedutil asked
 * for, and the frequency invariance of the scheduler's signals follows it.
 */

#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/module.h>
#include <linux/percpu.h>

#define STUNE_TEST_KHZ_STEP	200000
#define STUNE_TEST_NR_OPPS	10

static unsigned int initial_khz = STUNE_TEST_KHZ_STEP * STUNE_TEST_NR_OPPS;
module_param(initial_khz, uint, 0444);
MODULE_PARM_DESC(initial_khz, "frequency each CPU starts at, in kHz");

static struct cpufreq_frequency_table stune_test_table[STUNE_TEST_NR_OPPS + 1];

/* The frequency each CPU "runs" at, in kHz. */
static DEFINE_PER_CPU(unsigned int, stune_test_cur);

static unsigned int stune_test_set(struct cpufreq_policy *policy,
				   unsigned int khz)
{
	unsigned int cpu;

	/* policy->cpus: related_cpus is only filled in after ->init(). */
	for_each_cpu(cpu, policy->cpus)
		WRITE_ONCE(per_cpu(stune_test_cur, cpu), khz);
	return khz;
}

static int stune_test_target_index(struct cpufreq_policy *policy,
				   unsigned int index)
{
	stune_test_set(policy, policy->freq_table[index].frequency);
	return 0;
}

static unsigned int stune_test_fast_switch(struct cpufreq_policy *policy,
					   unsigned int target_freq)
{
	int index;

	index = cpufreq_frequency_table_target(policy, target_freq,
					       policy->min, policy->max,
					       CPUFREQ_RELATION_L);
	if (index < 0)
		return 0;
	return stune_test_set(policy, policy->freq_table[index].frequency);
}

static unsigned int stune_test_get(unsigned int cpu)
{
	return READ_ONCE(per_cpu(stune_test_cur, cpu));
}

static int stune_test_init(struct cpufreq_policy *policy)
{
	/* One policy per CPU: the core has already set policy->cpus. */
	policy->freq_table = stune_test_table;
	policy->cpuinfo.transition_latency = 100 * NSEC_PER_USEC;
	policy->transition_delay_us = 500;
	policy->fast_switch_possible = true;
	stune_test_set(policy, initial_khz);
	return 0;
}

static int stune_test_exit(struct cpufreq_policy *policy)
{
	policy->fast_switch_possible = false;
	return 0;
}

static struct cpufreq_driver stune_test_driver = {
	.name		= "stune-test",
	.flags		= CPUFREQ_NEED_INITIAL_FREQ_CHECK,
	.init		= stune_test_init,
	.exit		= stune_test_exit,
	.verify		= cpufreq_generic_frequency_table_verify,
	.target_index	= stune_test_target_index,
	.fast_switch	= stune_test_fast_switch,
	.get		= stune_test_get,
	.attr		= cpufreq_generic_attr,
};

static int __init stune_test_cpufreq_init(void)
{
	int i;

	for (i = 0; i < STUNE_TEST_NR_OPPS; i++) {
		stune_test_table[i].driver_data = i;
		stune_test_table[i].frequency = (i + 1) * STUNE_TEST_KHZ_STEP;
	}
	stune_test_table[i].frequency = CPUFREQ_TABLE_END;

	return cpufreq_register_driver(&stune_test_driver);
}
module_init(stune_test_cpufreq_init);

static void __exit stune_test_cpufreq_exit(void)
{
	cpufreq_unregister_driver(&stune_test_driver);
}
module_exit(stune_test_cpufreq_exit);

MODULE_DESCRIPTION("Test cpufreq driver with fast switching for SchedTune tests");
MODULE_LICENSE("GPL");
