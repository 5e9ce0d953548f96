/* The unit tests' shared harness, and every test that main() runs. */
#ifndef UNIT_H
#define UNIT_H

#include <stdint.h>

#define NS 1000000000LL
#define MS 1000000LL
#define US 1000LL

/* Checks that held and failed so far, and the test they count towards. */
extern int passed, failed;
extern const char *current;

/* Count one check; a failed one prints fmt under the current test. */
void check(int ok, const char *fmt, ...);

/* The next number of one deterministic sequence, and one below n. */
uint64_t rng(void);
uint64_t rng_below(uint64_t n);

/* Draw from state from now on (0: a fixed one); the state it had. */
uint64_t rng_swap(uint64_t state);

/*
 * Start the draws of test name from its own seed: one made of its name,
 * or TB_UNIT_SEED's (a number, 0x for hex).  A failed check then says the
 * seed, to draw the same cases again.
 */
void rng_start(const char *name);

/*
 * Whether releases rel[0..count) keep the token bucket's bound: at most
 * burst + rate * (span + catchup_ns) in any span, at rate n per d ns.
 */
int window_ok(const int64_t *rel, int count, uint64_t burst, uint64_t n,
    uint64_t d, int64_t catchup_ns);

/* units_test.c */
void test_parse_rate(void);
void test_parse_amount(void);

/* bucket_test.c */
void test_muldiv(void);
void test_exact_schedules(void);
void test_no_drift(void);
void test_idle_and_initial(void);
void test_charge_and_retune(void);
void test_catchup_cap(void);
void test_random_conformance(void);
void test_ready_then_take(void);

/* window_test.c */
void test_window(void);

/* fixed_test.c */
void test_fixed(void);
void test_fixed_zone(void);

/* zonemap_test.c: the test and the zones it builds by hand (Europe/Paris
 * of 2026, Asia/Kolkata), for the tests of their users. */
struct zonemap;
void test_zonemap(void);
void zonemap_test_paris(struct zonemap *z);
void zonemap_test_kolkata(struct zonemap *z);

/* slidering_test.c */
void test_slidering(void);

/* went_test.c */
void test_went(void);

/* failure_test.c */
void test_failure(void);

/* limiter_test.c */
void test_set(void);

/* framer_test.c */
void test_framer(void);
void test_framer_kernels(void);

/* stats_test.c, more */
void test_report_tiers(void);

/* piperoom_test.c */
void test_piperoom(void);

/* siphash_test.c */
void test_siphash(void);

/* hashslot_test.c */
void test_hashslot(void);

/* template_test.c */
void test_template(void);

/* keys_test.c */
void test_keys(void);
void test_keys_table(void);

/* gcra_test.c */
void test_gcra(void);

/* properties_test.c */
void test_properties(void);
void test_batch_properties(void);
void test_went_properties(void);

/* stats_test.c */
void test_stats(void);
void test_progress(void);

/* options_test.c */
void test_options(void);
void test_option_table(void);
void test_limit_parse(void);
void test_byte_limit_parse(void);

/* cmdline_test.c */
void test_cmdline(void);

/* runname_test.c */
void test_runname(void);

/* request_test.c */
void test_request(void);

/* tiers_test.c */
void test_tiers(void);
void test_tiers_any_key(void);

/* redisurl_test.c */
void test_redisurl(void);

/* timestamp_test.c */
void test_timestamp_calendar(void);
void test_timestamp_print(void);
void test_timestamp_formats(void);
void test_timestamp_check(void);
void test_timestamp_explicit(void);
void test_timestamp_state(void);
void test_timestamp_local(void);
void test_timestamp_json_keys(void);
void test_timestamp_bad(void);

/* keywin_test.c */
void test_keywin(void);

/* replay_test.c */
void test_replay(void);

/* policy_test.c */
void test_policy_span(void);

/* golden_test.c */
void test_golden(void);

/* batch_test.c */
void test_batch(void);

/* eviction_test.c */
void test_eviction(void);

/* fair_test.c */
void test_fair(void);

/* held_test.c */
void test_held(void);

/* retryafter_test.c */
void test_retryafter(void);

/* adapt_test.c */
void test_adapt(void);

/* resume_test.c */
void test_resume(void);

/* seqset_test.c */
void test_seqset(void);

/* joblog_test.c */
void test_joblog_format(void);
void test_joblog_read(void);

/* wildcard_test.c */
void test_wildcard(void);

/* msg_test.c */
void test_msg(void);

#endif
