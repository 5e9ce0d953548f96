/* The unit tests' entry: runs every test in turn, then the totals. */
#include <stdio.h>

#include "unit.h"

/*
 * The order is fixed: the tests draw from one generator, so moving one
 * would hand the others different random cases.
 */
int
main(void)
{
	test_parse_rate();
	test_parse_amount();
	test_muldiv();
	test_exact_schedules();
	test_no_drift();
	test_idle_and_initial();
	test_catchup_cap();
	test_charge_and_retune();
	test_random_conformance();
	test_ready_then_take();
	test_window();
	test_fixed();
	test_set();
	test_went();
	test_adapt();
	test_failure();
	test_framer();
	test_framer_kernels();
	test_siphash();
	test_hashslot();
	test_keys();
	test_keys_table();
	test_gcra();
	test_properties();
	test_stats();
	test_progress();
	test_options();
	test_option_table();
	test_limit_parse();
	test_byte_limit_parse();
	test_cmdline();
	test_runname();
	test_request();
	test_tiers();
	test_redisurl();
	test_timestamp_calendar();
	test_timestamp_print();
	test_timestamp_formats();
	test_timestamp_check();
	test_timestamp_explicit();
	test_timestamp_state();
	test_timestamp_local();
	test_timestamp_bad();
	test_keywin();
	test_replay();
	test_policy_span();
	test_batch();
	test_batch_properties();
	test_went_properties();
	test_eviction();
	test_wildcard();
	test_tiers_any_key();
	test_piperoom();
	test_report_tiers();
	test_golden();
	test_fair();
	test_held();
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed == 0 ? 0 : 1;
}
