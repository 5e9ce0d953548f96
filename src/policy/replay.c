/* Replaying (--replay): records leave at their own timestamps; pure. */
#include <stdio.h>
#include <string.h>

#include "msg.h"
#include "replay.h"

void
replay_schedule_init(
    struct replay_schedule *s, uint64_t num, uint64_t den, int64_t max_gap_ns)
{
	*s = (struct replay_schedule){
		.num = num, .den = den, .max_gap_ns = max_gap_ns
	};
}

/* a + b, kept within INT64_MIN + 1 and INT64_MAX - 1 (a wait for input). */
static int64_t
add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - 1 - b)
		return INT64_MAX - 1;
	if (b < 0 && a < INT64_MIN + 1 - b)
		return INT64_MIN + 1;
	return a + b;
}

/* A record time kept within the timestamps' range, so that the
 * difference of two never overflows. */
static int64_t
clamp_ts(int64_t ts)
{
	if (ts > TIMESTAMP_MAX_NS)
		return TIMESTAMP_MAX_NS;
	return ts < TIMESTAMP_MIN_NS ? TIMESTAMP_MIN_NS : ts;
}

void
replay_plan(const struct replay_schedule *s, bool timed, int64_t ts,
    int64_t now_ns, struct replay_slot *slot)
{
	int64_t due;

	*slot = (struct replay_slot){ .timed = timed, .ts = ts };
	if (!timed) {
		slot->due_ns = s->have_last ? s->last_due_ns : now_ns;
		return;
	}
	if (!s->anchored) {
		/* The first timed record starts the schedule, at once. */
		slot->due_ns = s->have_last && s->last_due_ns > now_ns ?
		    s->last_due_ns :
		    now_ns;
		slot->reanchor = true;
		return;
	}
	/* Rounded up: a record is never due before its exact time. */
	due = add_sat(s->anchor_ns,
	    bucket_muldiv_ceil(ts - s->anchor_ts, s->den, s->num));
	slot->out_of_order = s->have_high && ts < s->high_ts;
	if (s->max_gap_ns >= 0 && due > s->last_due_ns &&
	    (uint64_t)due - (uint64_t)s->last_due_ns >
		(uint64_t)s->max_gap_ns) {
		/* The wait is cut, and the rest of the schedule with it. */
		due = add_sat(s->last_due_ns, s->max_gap_ns);
		slot->reanchor = true;
	}
	slot->due_ns = due > s->last_due_ns ? due : s->last_due_ns;
}

void
replay_commit(struct replay_schedule *s, const struct replay_slot *slot)
{
	s->have_last = true;
	s->last_due_ns = slot->due_ns;
	if (!slot->timed)
		return;
	if (slot->reanchor) {
		s->anchored = true;
		s->anchor_ns = slot->due_ns;
		s->anchor_ts = slot->ts;
	}
	if (!s->have_high || slot->ts > s->high_ts) {
		s->have_high = true;
		s->high_ts = slot->ts;
	}
}

void
replay_schedule_loop(struct replay_schedule *s, int64_t gap_ns)
{
	s->anchored = false;
	s->have_high = false;
	if (s->have_last)
		s->last_due_ns = add_sat(s->last_due_ns, gap_ns);
}

void
replay_set_speed(
    struct replay_schedule *s, uint64_t num, uint64_t den, int64_t now_ns)
{
	if (s->anchored) {
		/* Rounded down: what was due before the change stays due. */
		int64_t reached = bucket_muldiv_floor(
		    now_ns - s->anchor_ns, s->num, s->den);

		s->anchor_ts = clamp_ts(add_sat(s->anchor_ts, reached));
		s->anchor_ns = now_ns;
	}
	s->num = num;
	s->den = den;
}

/* ---- the policy ---- */

const char *
replay_format_name(const struct timestamp_format *fmt)
{
	switch (fmt->kind) {
	case TIMESTAMP_EPOCH:
		return fmt->epoch_digits == 13 ? "epoch ms" :
		    fmt->epoch_digits == 16    ? "epoch us" :
		    fmt->epoch_digits == 19    ? "epoch ns" :
						 "epoch s";
	case TIMESTAMP_ISO:
		return "RFC 3339";
	case TIMESTAMP_SYSLOG:
		return "syslog";
	case TIMESTAMP_CLF:
		return "common log format";
	case TIMESTAMP_FORMAT:
		return "--time-format";
	default:
		return NULL;
	}
}

/*
 * Read the record at the head of v, once, from rec[0..v->len): its length
 * and its timestamp.  False when it is not whole yet; a record longer
 * than the buffer is read from the part that is there.
 */
static bool
parse_at(struct replay *r, const struct view *v, size_t off)
{
	const char *rec = v->b + off, *end;
	size_t len = v->len - off;

	end = memchr(rec, r->gate->framer.delim, len);
	r->outgrown = false;
	if (end != NULL) {
		len = (size_t)(end - rec);
		r->bytes = len + 1;
	} else if (v->eof && len > 0) {
		r->bytes = len;
	} else if (off == 0 && v->full) {
		r->outgrown = true;
		r->bytes = 0;
	} else {
		return false;
	}
	r->timed = timestamp_parse(r->fmt, rec, len, &r->ts) == 0;
	if (r->stats != NULL && r->stats->format == NULL)
		r->stats->format = replay_format_name(r->fmt);
	r->parsed = true;
	return true;
}

/* The head record, as the gate books it, to go at at_ns. */
static void
booking_of(const struct replay *r, const struct view *v, int64_t at_ns,
    struct booking *b)
{
	*b = (struct booking){ .rec = v->b,
		.bytes = r->outgrown ? v->len : r->bytes,
		.units = 1,
		.at_ns = at_ns,
		.outgrown = r->outgrown };
}

/*
 * Plan the head record at now_ns: its place in the schedule, and, when
 * it waits for the ceiling, when the limits let it go.
 */
static void
book(struct replay *r, const struct view *v, int64_t now_ns)
{
	int64_t at;

	replay_plan(&r->sched, r->timed, r->ts, now_ns, &r->slot);
	/* The limits count a record from its time, or, if it came late,
	 * from when it came. */
	at = r->slot.due_ns > v->ready_ns ? r->slot.due_ns : v->ready_ns;
	booking_of(r, v, at, &r->b);
	r->due_ns = at;
	/* Dropping, it is judged when it goes, at its time. */
	if (!r->drop && gate_plan(r->gate, &r->b, 1, at) == 1 &&
	    r->b.due_ns > r->due_ns)
		r->due_ns = r->b.due_ns;
	r->booked = true;
}

/* The record planned in slot went at now_ns: commit it, count it. */
static void
gone(struct replay *r, const struct replay_slot *slot, int64_t now_ns)
{
	struct stats_replay *st = r->stats;

	replay_commit(&r->sched, slot);
	r->parsed = r->booked = false;
	if (st == NULL)
		return;
	if (!slot->timed) {
		st->untimed++;
		return;
	}
	st->timed++;
	st->last_ts = slot->ts;
	st->out_of_order += slot->out_of_order;
	stats_late_add(st, now_ns - slot->due_ns);
}

/*
 * With no ceiling, the records after the head that are due by now_ns go
 * with it: bytes of them after off.  The first that is not due stays
 * read, for the next turn.
 */
static size_t
more_due(struct replay *r, const struct view *v, size_t off, int64_t now_ns,
    uint64_t *units)
{
	struct replay_slot slot;

	while (off < v->len && parse_at(r, v, off) && !r->outgrown) {
		replay_plan(&r->sched, r->timed, r->ts, now_ns, &slot);
		if (slot.due_ns > now_ns)
			break;
		off += r->bytes;
		(*units)++;
		gone(r, &slot, now_ns);
	}
	return off;
}

/* The head record is due at now_ns: it goes, or is dropped. */
static void
release(
    struct replay *r, const struct view *v, int64_t now_ns, struct action *a)
{
	const struct gate *g = r->gate;
	struct replay_slot slot = r->slot;
	bool pass = true, outgrown = r->outgrown;
	size_t bytes = r->bytes;
	uint64_t units = 1;

	/* Does the ceiling carry it at its time?  Charged if so. */
	if (r->drop)
		pass = gate_judge(g, &r->b, 1) == 1 && r->b.taken > 0;
	else
		gate_take(g, &r->b, 1, outgrown ? 0 : bytes, now_ns);
	gone(r, &slot, now_ns);
	if (outgrown) {
		policy_move(a, ACT_LONG, 0, 0, 1, r->due_ns);
		a->pass = pass;
		return;
	}
	if (pass && !gate_limits(g))
		bytes = more_due(r, v, bytes, now_ns, &units);
	policy_move(a, pass ? ACT_SEND : ACT_DROP, 0, bytes, units,
	    pass ? r->due_ns : INT64_MIN);
}

/* What the replay looked for in each record, for a message. */
static const char *
tried(const struct timestamp_format *f, char *buf, size_t size)
{
	int n = 0;

	if (f->kind == TIMESTAMP_FORMAT)
		n = snprintf(buf, size, "the --time-format '%s'", f->spec);
	else
		n = snprintf(buf, size,
		    "epoch, RFC 3339, syslog and common log format times");
	if (f->key != NULL && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " in the JSON key \"%s\"",
		    f->key);
	else if (f->field > 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " at field %u", f->field);
	else if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " in each record");
	return buf;
}

/*
 * The first record, rec[0..len), as a message shows it: where the
 * timestamp was looked for in it (its field or key, or all of it), cut to
 * 60 bytes, into buf.
 */
static const char *
shown(const struct timestamp_format *f, const char *rec, size_t len, char *buf,
    size_t size)
{
	const char *t = rec;
	size_t n = len;
	char where[64], text[280];
	bool found = true;

	if (f->key != NULL)
		snprintf(where, sizeof where, "key \"%.40s\"", f->key);
	else
		snprintf(where, sizeof where, "field %u", f->field);
	if (f->key != NULL || f->field != 0)
		found = timestamp_where(f, rec, len, &t, &n);

	/* Its first 60 bytes, NULs shown, and a cut said. */
	msg_bytes(t, n > 60 ? 60 : n, text, sizeof text);
	if (n > 60)
		snprintf(
		    text + strlen(text), sizeof text - strlen(text), "...");
	if (f->key == NULL && f->field == 0)
		snprintf(buf, size, "the first: '%s'", text);
	else if (found)
		snprintf(buf, size, "%s of the first: '%s'", where, text);
	else
		snprintf(buf, size, "the first, '%s', has no %s%s", text, where,
		    f->key == NULL && f->sep < 0 ?
			": fields are split at blanks, or at C with -F C" :
			"");
	return buf;
}

const char *
replay_missing(const struct timestamp_format *fmt, const char *rec, size_t len,
    char *buf, size_t size)
{
	char what[160], first[512];

	snprintf(buf, size,
	    "(%s); looked for %s: give --time-field N, --time-key NAME or "
	    "--time-format FMT",
	    shown(fmt, rec, len, first, sizeof first),
	    tried(fmt, what, sizeof what));
	return buf;
}

void
replay_note(const struct timestamp_format *fmt, const char *rec, size_t len,
    char *note, size_t size)
{
	char others[160];

	note[0] = '\0';
	if (fmt->found_key[0] == '\0')
		return;
	if (timestamp_other_keys(fmt, rec, len, others, sizeof others) > 0)
		snprintf(note, size,
		    "--replay: records timed by their JSON key \"%s\" (also "
		    "holding a time: %s; --time-key NAME picks another)",
		    fmt->found_key, others);
	else
		snprintf(note, size,
		    "--replay: records timed by their JSON key \"%s\"",
		    fmt->found_key);
	msg_escape(note, size);
}

/*
 * Before the first release: is there a timed record among the first
 * REPLAY_PROBE of v?  1 yes (or no record at all), 0 not known until
 * more is read, -1 none (r->why says so).  Without one, every record
 * would go at once: a copy, not a replay.
 */
static int
probe(struct replay *r, const struct view *v)
{
	const char *rec = v->b, *end = v->b + v->len, *nl;
	size_t n = 0, len;
	int64_t ts;
	char why[768];

	if (r->found)
		return 1;
	for (; rec < end && n < REPLAY_PROBE; n++) {
		nl = memchr(rec, r->gate->framer.delim, (size_t)(end - rec));
		/* Not whole yet: more is read, unless it fills the buffer. */
		if (nl == NULL && !v->eof && !(v->full && n == 0))
			break;
		len = nl != NULL ? (size_t)(nl - rec) : (size_t)(end - rec);
		if (timestamp_parse(r->fmt, rec, len, &ts) == 0) {
			replay_note(r->fmt, rec, len, r->note, sizeof r->note);
			return r->found = true;
		}
		rec = nl != NULL ? nl + 1 : end;
	}
	if (v->len == 0 && v->eof)
		return 1;
	if (n < REPLAY_PROBE && !v->eof && !v->full)
		return 0;
	nl = memchr(v->b, r->gate->framer.delim, v->len);
	len = nl != NULL ? (size_t)(nl - v->b) : v->len;
	snprintf(r->why, sizeof r->why,
	    "--replay: no timestamp in the first %zu record%s %s", n,
	    n == 1 ? "" : "s",
	    replay_missing(r->fmt, v->b, len, why, sizeof why));
	msg_escape(r->why, sizeof r->why);
	return -1;
}

static void
replay_next(void *self, const struct view *v, int64_t now_ns, struct action *a)
{
	struct replay *r = self;
	int found;

	if (!r->found && (found = probe(r, v)) <= 0) {
		if (found == 0)
			policy_read(a);
		else
			policy_fail(a, r->why);
		return;
	}
	if (!r->parsed && !parse_at(r, v, 0)) {
		policy_read(a);
		return;
	}
	if (!r->booked)
		book(r, v, now_ns);
	if (now_ns < r->due_ns)
		policy_wait(a, r->due_ns, false);
	else
		release(r, v, now_ns, a);
	if (r->note[0] != '\0' && !r->noted) {
		a->note = r->note;
		r->noted = true;
	}
}

/* The bytes of a long record that went out are charged as they pass. */
static void
replay_streamed(void *self, const struct moved *m, int64_t now_ns)
{
	const struct replay *r = self;

	if (m->pass)
		gate_streamed(r->gate, m->ready_ns, now_ns, m->bytes);
}

/*
 * The limits, or the speed, changed: plan the head record again, unless
 * the limits booked it ahead and it is due by now_ns.
 */
static void
replay_retuned(void *self, int64_t now_ns)
{
	struct replay *r = self;

	r->booked = r->booked && gate_held(r->gate, &r->b, 1, now_ns) == 1;
}

/* Another pass of --loop begins at now_ns: a schedule afresh, counted. */
static void
replay_rewound(void *self, int64_t now_ns)
{
	struct replay *r = self;

	(void)now_ns;
	replay_schedule_loop(&r->sched, r->loop_gap_ns);
	r->parsed = r->booked = false;
	if (r->stats != NULL)
		r->stats->passes++;
}

void
replay_loop_gap(struct replay *r, int64_t gap_ns)
{
	r->loop_gap_ns = gap_ns;
}

void
replay_policy(struct policy *p, struct replay *r, const struct gate *g,
    struct timestamp_format *fmt, const struct replay_schedule *sched,
    bool drop, struct stats_replay *stats)
{
	*r = (struct replay){ .gate = g,
		.fmt = fmt,
		.sched = *sched,
		.stats = stats,
		.drop = drop };
	if (stats != NULL) {
		stats->speed_num = sched->num;
		stats->speed_den = sched->den;
		stats->passes = 1;
	}
	*p = (struct policy){ .self = r,
		.next = replay_next,
		.streamed = replay_streamed,
		.retuned = replay_retuned,
		.uses_ready = true,
		.read = READ_COPY,
		.rewound = replay_rewound };
}

void
replay_speed(struct replay *r, uint64_t num, uint64_t den, int64_t now_ns)
{
	replay_set_speed(&r->sched, num, den, now_ns);
	r->booked = false;
	if (r->stats != NULL) {
		r->stats->speed_num = num;
		r->stats->speed_den = den;
	}
}
