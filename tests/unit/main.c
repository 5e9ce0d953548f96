/* The unit tests' entry: runs every test in turn, then the totals. */
#include <stdio.h>

#include "unit.h"

/* Each test draws its random cases from a seed of its own. */
#define RUN(test) (rng_start(#test), test())

int
main(void)
{
	RUN(test_parse_rate);
	RUN(test_parse_amount);
	RUN(test_muldiv);
	RUN(test_exact_schedules);
	RUN(test_no_drift);
	RUN(test_idle_and_initial);
	RUN(test_catchup_cap);
	RUN(test_charge_and_retune);
	RUN(test_random_conformance);
	RUN(test_ready_then_take);
	RUN(test_window);
	RUN(test_fixed);
	RUN(test_zonemap);
	RUN(test_fixed_zone);
	RUN(test_slidering);
	RUN(test_set);
	RUN(test_went);
	RUN(test_framer);
	RUN(test_framer_kernels);
	RUN(test_siphash);
	RUN(test_hashslot);
	RUN(test_keys);
	RUN(test_keys_table);
	RUN(test_gcra);
	RUN(test_properties);
	RUN(test_stats);
	RUN(test_progress);
	RUN(test_options);
	RUN(test_option_table);
	RUN(test_limit_parse);
	RUN(test_byte_limit_parse);
	RUN(test_cmdline);
	RUN(test_runname);
	RUN(test_request);
	RUN(test_tiers);
	RUN(test_redisurl);
	RUN(test_timestamp_calendar);
	RUN(test_timestamp_print);
	RUN(test_timestamp_formats);
	RUN(test_timestamp_check);
	RUN(test_timestamp_explicit);
	RUN(test_timestamp_state);
	RUN(test_timestamp_local);
	RUN(test_timestamp_bad);
	RUN(test_timestamp_json_keys);
	RUN(test_keywin);
	RUN(test_replay);
	RUN(test_policy_span);
	RUN(test_batch);
	RUN(test_batch_properties);
	RUN(test_went_properties);
	RUN(test_eviction);
	RUN(test_wildcard);
	RUN(test_msg);
	RUN(test_tiers_any_key);
	RUN(test_piperoom);
	RUN(test_report_tiers);
	RUN(test_golden);
	RUN(test_fair);
	RUN(test_held);
	RUN(test_retryafter);
	RUN(test_template);
	RUN(test_seqset);
	RUN(test_joblog_format);
	RUN(test_joblog_read);
	RUN(test_resume);
	RUN(test_adapt);
	RUN(test_failure);
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
