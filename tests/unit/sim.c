/* A fake engine for the unit tests: the real policies on a fake clock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "unit.h"

void
sim_start(struct sim *s, const int64_t *arrive, const int *key, int count,
    bool jitter, uint64_t (*below)(uint64_t n))
{
	memset(s, 0, sizeof *s);
	s->arrive = arrive;
	s->key = key;
	s->count = count;
	s->jitter = jitter;
	s->below = below;
	s->change_at = INT64_MAX;
	for (int i = 0; i < SIM_RECORDS; i++)
		s->rel[i] = -1;
}

/* The text of record i into out; its length. */
static size_t
sim_record(const struct sim *s, int i, char *out, size_t size)
{
	int n = s->wide ? snprintf(out, size, "k%02d %04u", s->key[i] % 100,
			      (unsigned)i % 10000) :
			  snprintf(out, size, "%c %04u", 'a' + s->key[i] % 3,
			      (unsigned)i % 10000);

	if (s->ts != NULL && s->ts[i] >= 0)
		n += snprintf(out + n, size - (size_t)n, " %lld.%09lld ",
		    (long long)(1732370706LL + s->ts[i] / NS),
		    (long long)(s->ts[i] % NS));
	else if (s->ts != NULL)
		n += snprintf(out + n, size - (size_t)n, " -");
	for (int p = 0; s->pad != NULL && p < s->pad[i]; p++)
		out[n++] = 'x';
	out[n++] = '\n';
	return (size_t)n;
}

/* Deliver every record that has arrived by now, as a read would. */
static void
sim_deliver(struct sim *s)
{
	char rec[128];
	size_t n;

	while (s->next < s->count && s->arrive[s->next] <= s->now &&
	    s->len + (n = sim_record(s, s->next, rec, sizeof rec)) <=
		sizeof s->buf) {
		memcpy(s->buf + s->len, rec, n);
		s->len += n;
		s->next++;
	}
	if (s->next == s->count)
		s->eof = true;
	s->read_ns = s->now;
}

/* Is the buffer full: does the next record (or a byte) not fit? */
static bool
sim_full(const struct sim *s)
{
	char rec[128];
	size_t n = s->next < s->count ?
	    sim_record(s, s->next, rec, sizeof rec) :
	    1;

	return s->len + n > sizeof s->buf;
}

/*
 * Record id, the first of units left of a send in bytes left, starts: it
 * goes some time in the spawn, and then the gate is told.
 */
static void
sim_spawn(struct sim *s, int id, uint64_t units, size_t bytes)
{
	int64_t before = s->now;

	s->now += (int64_t)s->below((uint64_t)s->spawn_ns + 1);
	s->rel[id] = before +
	    (int64_t)s->below((uint64_t)(s->now - before) + 1);
	s->order[s->nrel++] = id;
	gate_went(s->went, units, bytes, s->now);
}

/* Take bytes at off out of the buffer, as sent (or dropped) now. */
static void
sim_take(struct sim *s, size_t off, size_t bytes, uint64_t units, bool send)
{
	uint64_t whole = 0;

	if (off + bytes > s->len || bytes == 0 ||
	    (off > 0 && s->buf[off - 1] != '\n') ||
	    s->buf[off + bytes - 1] != '\n') {
		s->bad++;
		return;
	}
	for (size_t i = off; i < off + bytes; i++)
		whole += s->buf[i] == '\n';
	if (whole != units) {
		s->bad++;
		return;
	}
	for (size_t i = off; i < off + bytes;) {
		int id = atoi((char *)memchr(s->buf + i, ' ', s->len - i) + 1);

		if (send && s->went != NULL) {
			sim_spawn(s, id, units--, off + bytes - i);
		} else if (send) {
			s->rel[id] = s->now;
			s->order[s->nrel++] = id;
		} else {
			s->dropped[id] = true;
			s->ndrop++;
		}
		i = (size_t)((char *)memchr(s->buf + i, '\n', off + bytes - i) -
			s->buf) +
		    1;
	}
	memmove(s->buf + off, s->buf + off + bytes, s->len - off - bytes);
	s->len -= bytes;
}

/* A wake-up at due_ns, sometimes late. */
static void
sim_wake(struct sim *s, int64_t due_ns)
{
	if (due_ns > s->now)
		s->now = due_ns +
		    (s->jitter && s->below(4) == 0 ? (int64_t)s->below(3 * MS) :
						     0);
}

/* Wait as a asks: for input, or until it is due.  False to stop. */
static bool
sim_wait(struct sim *s, const struct action *a)
{
	if (a->read && s->next < s->count && s->arrive[s->next] <= a->due_ns) {
		if (s->arrive[s->next] > s->now)
			s->now = s->arrive[s->next];
		sim_deliver(s);
	} else if (a->read && s->next == s->count) {
		sim_deliver(s);
	} else if (a->due_ns == INT64_MAX) {
		s->bad++; /* waits for nothing */
		return false;
	} else {
		sim_wake(s, a->due_ns);
	}
	return true;
}

/* A live change due by now: make it, and tell the policy. */
static void
sim_change(struct sim *s, const struct policy *p)
{
	if (s->now < s->change_at)
		return;
	s->change_at = INT64_MAX;
	s->change(s->change_ctx, s->now);
	if (p->retuned != NULL)
		p->retuned(p->self, s->now);
}

void
sim_run(struct sim *s, const struct policy *p)
{
	struct action a;
	struct view v;

	for (int steps = 0; steps < 100000; steps++) {
		sim_change(s, p);
		v = (struct view){ s->buf, s->len, s->eof, sim_full(s),
			s->ready_ns, s->read_ns };
		policy_next(p, &v, s->now, &a);
		/* Once all is admitted (it waits or reads), what it holds. */
		if ((a.kind == ACT_WAIT || a.kind == ACT_READ) &&
		    (size_t)(s->next - s->nrel - s->ndrop) > s->most_held)
			s->most_held = (size_t)(s->next - s->nrel - s->ndrop);
		switch (a.kind) {
		case ACT_SEND:
		case ACT_DROP:
			sim_take(
			    s, a.off, a.bytes, a.units, a.kind == ACT_SEND);
			break;
		case ACT_LONG:
			s->bad++; /* no record outgrows the buffer */
			return;
		case ACT_FAIL:
			s->failed = true;
			return;
		case ACT_WAIT:
			if (!sim_wait(s, &a))
				return;
			break;
		case ACT_READ:
			if (s->eof)
				return;
			if (s->arrive[s->next] > s->now) {
				/* Nothing was waiting: a fresh start. */
				s->now = s->arrive[s->next];
				s->ready_ns = s->now;
			}
			sim_deliver(s);
			break;
		}
	}
	s->bad++; /* never finished */
}

/* FNV-1a of the n bytes at p, on from h. */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t
sim_digest(const struct sim *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; i < s->count; i++) {
		h = fnv(h, &s->rel[i], sizeof s->rel[i]);
		h = fnv(h, &s->dropped[i], sizeof s->dropped[i]);
	}
	h = fnv(h, s->order, (size_t)s->nrel * sizeof s->order[0]);
	h = fnv(h, &s->bad, sizeof s->bad);
	return h;
}
