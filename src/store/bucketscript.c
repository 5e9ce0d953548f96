/* The bucket script: its text, each call's words (its ops), its answers. */
#ifdef HAVE_HIREDIS

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redisstore.h"

/*
 * The check-and-book, atomic in Redis.  Time is the server's (TIME), in
 * microseconds, so the clocks of the hosts do not matter.  KEYS[1], the
 * settings, holds i and b, the interval in microseconds and the burst,
 * u, the unit, r, the rate as given, and ti, tb and tr, the same of the
 * total (empty without one): set by the first process, checked by each
 * newcomer (claim), and kept while any process uses the bucket (every
 * call refreshes its expiry).  KEYS[2] holds this process's last batch:
 * s, its number, and r, its answer.  With a total, KEYS[3] is its bucket.
 * The keys after are the buckets of a batch, in order: each holds t, the
 * time it is full again (GCRA), i, the interval it was booked at, and h,
 * a hold (below), and expires then, carrying nothing.  Booked at another interval (its tier's
 * rate was changed), what it owes is re-rated from that moment.
 * ARGV: op, rate text, unit, settings TTL (ms), the settings i and b that
 * newcomers must give (the interval and burst, or with --tiers a digest
 * of every tier's and "tiers"), the batch's number, how far ahead to book
 * (us), then interval, burst and units of each bucket (an empty interval:
 * its key has no limit of its own, only the total), and last the total's
 * interval, burst and text, empty without one.
 * op: claim returns 0, or the settings when they differ; reset sets
 * them, whatever they were, and returns 0; keep returns 0.  book books
 * each bucket's units from when the one before may go (the first now),
 * as if each were booked as the one before went, and stops after one
 * due beyond the look-ahead, unless the next is of the same bucket and
 * within the look-ahead of the first due beyond it: it returns how many
 * it booked, then the wait of each in microseconds.  take takes what
 * there is room for, up to units, in each, and returns how many buckets,
 * then how many units each gave.  Every record pays the total too: it is
 * due when both its bucket and the total's allow it, both charged as if
 * it went then; take takes what both have room for, from both.  A batch
 * asked again (its answer was lost) is answered as before, booking
 * nothing twice.  now books as book does while each is due at once, and
 * stops, booking nothing more, at the first that would wait (a cluster's
 * shards, asked at once).  undo, for this process's last batch if it is
 * the batch given (its number) and booked more than q (the look-ahead's
 * place), gives back the units of the buckets given (those booked after
 * the first q) and keeps only the first q of its answer, so that it is
 * answered so if asked again; it returns 0.  For --adapt, the settings
 * also hold ac and ap, the fleet's last cut: its time (TIME, us) and its
 * peak (a fraction of the rate, 24 bits).  cut sets them to now and
 * ARGV[8]; hold sets h of the bucket (KEYS[3]), a time before which it
 * is empty whatever its interval, to ARGV[8] us from now unless later
 * already; look, cut and hold return now, ac and ap (0 and 0: never
 * cut).  Booking uses
 * this process's settings even if another's were set while it could not
 * refresh them: a running process never fails for a newcomer.  show
 * (--show) and clear (--reset) touch no settings: without any, both
 * return {0}; clear deletes the bucket (KEYS[3]) and returns {1}; show
 * returns {1, TIME's seconds and microseconds, the settings i, b, u and
 * r, and the bucket: t, h, x and c of a hash (empty: none), a window's
 * list of times, or nothing}.
 */
static const char head[] =
    "if redis.replicate_commands then pcall(redis.replicate_commands) end\n"
    "local op = ARGV[1]\n"
    "if op == 'show' or op == 'clear' then\n"
    "  local s = redis.call('HMGET', KEYS[1], 'i', 'b', 'u', 'r')\n"
    "  if not s[1] then return {0} end\n"
    "  if op == 'clear' then redis.call('DEL', KEYS[3]) return {1} end\n"
    "  local t = redis.call('TIME')\n"
    "  local st, ty = {}, redis.call('TYPE', KEYS[3])['ok']\n"
    "  if ty == 'list' then st = redis.call('LRANGE', KEYS[3], 0, -1)\n"
    "  elseif ty == 'hash' then\n"
    "    st = redis.call('HMGET', KEYS[3], 't', 'h', 'x', 'c')\n"
    "    for k = 1, 4 do st[k] = st[k] or '' end\n"
    "  end\n"
    "  return {1, t[1], t[2], s[1], s[2], s[3] or '', s[4] or '', st}\n"
    "end\n"
    "local ti, tb, tr = ARGV[#ARGV - 2], ARGV[#ARGV - 1], ARGV[#ARGV]\n"
    "local s = redis.call('HMGET', KEYS[1], 'i', 'b', 'u', 'r', 'ti', 'tb',\n"
    "  'tr')\n"
    "if not s[1] or op == 'reset' then\n"
    "  redis.call('HSET', KEYS[1], 'i', ARGV[5], 'b', ARGV[6], 'u', ARGV[3],\n"
    "    'r', ARGV[2], 'ti', ti, 'tb', tb, 'tr', tr)\n"
    "elseif op == 'claim' and (s[1] ~= ARGV[5] or s[2] ~= ARGV[6] or\n"
    "    s[3] ~= ARGV[3] or (s[5] or '') ~= ti or (s[6] or '') ~= tb) then\n"
    "  return {tostring(s[4] or '?'), tostring(s[2] or '?'),\n"
    "    tostring(s[3] or '?'), tostring(s[7] or '')}\n"
    "end\n"
    "local function hold(ms)\n"
    "  if redis.call('PTTL', KEYS[1]) < ms then\n"
    "    redis.call('PEXPIRE', KEYS[1], ms)\n"
    "  end\n"
    "end\n"
    "hold(tonumber(ARGV[4]))\n"
    "if op == 'cut' or op == 'look' or op == 'hold' then\n"
    "  local t = redis.call('TIME')\n"
    "  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
    "  if op == 'cut' then\n"
    "    redis.call('HSET', KEYS[1], 'ac', string.format('%.17g', now),\n"
    "      'ap', ARGV[8])\n"
    "  elseif op == 'hold' then\n"
    "    local h = now + tonumber(ARGV[8])\n"
    "    local ms = math.ceil(tonumber(ARGV[8]) / 1000) + 1\n"
    "    if h > (tonumber(redis.call('HGET', KEYS[3], 'h') or '0') or 0)\n"
    "    then\n"
    "      redis.call('HSET', KEYS[3], 'h', string.format('%.17g', h))\n"
    "      if redis.call('PTTL', KEYS[3]) < ms then\n"
    "        redis.call('PEXPIRE', KEYS[3], ms)\n"
    "      end\n"
    "      hold(ms)\n"
    "    end\n"
    "  end\n"
    "  local w = redis.call('HMGET', KEYS[1], 'ac', 'ap')\n"
    "  return {now, tonumber(w[1] or '0') or 0, tonumber(w[2] or '0') or 0}\n"
    "end\n";

/*
 * Windows (-a fixed, -a sliding): the unit, ARGV[3], names the kind, and
 * each key's interval is its window's width in microseconds, then for a
 * fixed window the zone's UTC offset now, the time of its next change
 * and the offset after it (us; none: UTC), and its burst the window's N.
 * A fixed window's key holds x, the window of its latest booking, and c,
 * the units booked in it; a window is a span of local time, so a day
 * starts at midnight, and an index gone back (a clock set back, an hour
 * repeated) counts in the later window.  A sliding window's key is a
 * list of its last N release times (us, oldest first): a unit goes no
 * sooner than the latest, nor than a width after the N-th latest.  Both
 * keep a guard at the end of a window, so that a command that starts a
 * little late cannot make N + 1: 20 ms for a fixed window, whose units
 * go together at its start; 100 ms for a sliding one, where a late start
 * of a unit brings it nearer the one N later (for a window under 200 ms
 * or 1 s, a tenth of it).
 * There is no total, no tier and no cut with a window.
 */
static const char wins[] =
    "local win = (ARGV[3] == 'fixed' or ARGV[3] == 'sliding') and ARGV[3]\n"
    "local function wz(s)\n"
    "  local v = {}\n"
    "  for x in string.gmatch(s, '[^,]+') do v[#v + 1] = tonumber(x) end\n"
    "  local z = {w = v[1], o = v[2] or 0, at = v[3] or math.huge}\n"
    "  z.o2 = v[4] or z.o\n"
    "  z.g = math.min(win == 'fixed' and 20000 or 100000,\n"
    "    math.floor(z.w / 10))\n"
    "  return z\n"
    "end\n"
    "local function wstart(i, z)\n"
    "  local t = i * z.w - z.o\n"
    "  if t < z.at then return t end\n"
    "  t = i * z.w - z.o2\n"
    "  if t < z.at then return z.at end\n"
    "  return t\n"
    "end\n"
    "local function widx(t, z)\n"
    "  return math.floor((t + (t >= z.at and z.o2 or z.o)) / z.w)\n"
    "end\n"
    "local function wnext(i, z)\n"
    "  return math.max(i + 1, widx(wstart(i + 1, z), z))\n"
    "end\n"
    "local function wof(t, z)\n"
    "  local i = widx(t, z)\n"
    "  return i, wstart(i + 1, z) - t < z.g\n"
    "end\n"
    "local function wbad(key, what)\n"
    "  error({err = 'WRONGTYPE ' .. key .. ' holds ' .. what ..\n"
    "    ', not a window of tbthrottle'})\n"
    "end\n"
    "local function wint(v)\n"
    "  return v and v == v and v == math.floor(v) and v >= 0 and v < 2^53\n"
    "end\n"
    "local function wfixed(key, z, n, u, t, now)\n"
    "  local s = redis.call('HMGET', key, 'x', 'c')\n"
    "  local x, c = tonumber(s[1] or ''), tonumber(s[2] or '') or 0\n"
    "  local i, late = wof(t, z)\n"
    "  if (s[1] and not wint(x)) or (s[2] and not wint(c)) or\n"
    "      (x and x > i + 1e6) then\n"
    "    wbad(key, 'x ' .. tostring(s[1]) .. ', c ' .. tostring(s[2]))\n"
    "  end\n"
    "  if op == 'take' then\n"
    "    if x and x > i then return 0, t, 0 end\n"
    "    if x ~= i then c = 0 end\n"
    "    u = math.max(math.min(u, n - c), 0)\n"
    "    if u == 0 then return 0, t, 0 end\n"
    "    if late then x, c = wnext(i, z), u else x, c = i, c + u end\n"
    "  else\n"
    "    if late then i = wnext(i, z) end\n"
    "    if x and x >= i then i = x else c = 0 end\n"
    "    if c + u > n then i, c = wnext(i, z), 0 end\n"
    "    t = math.max(t, wstart(i, z))\n"
    "    if op == 'now' and t > now then return nil end\n"
    "    x, c = i, c + u\n"
    "  end\n"
    "  local ms = math.max(math.ceil((wstart(x + 1, z) - now) / 1000), 0) + 1\n"
    "  redis.call('HSET', key, 'x', string.format('%.17g', x),\n"
    "    'c', string.format('%.17g', c))\n"
    "  redis.call('PEXPIRE', key, ms)\n"
    "  return u, t, ms\n"
    "end\n";

/* The rest of the windows: the sliding window, a batch, and undo. */
static const char wins2[] =
    "local function wslide(key, z, n, u, t, now)\n"
    "  local len, got = redis.call('LLEN', key), 0\n"
    "  local function stamp(k)\n"
    "    local v = redis.call('LINDEX', key, k)\n"
    "    local x = tonumber(v)\n"
    "    if not wint(x) or x > now + (n + 1) * (z.w + z.g) * 1e3 then\n"
    "      wbad(key, 'a time ' .. tostring(v))\n"
    "    end\n"
    "    return x\n"
    "  end\n"
    "  for j = 1, u do\n"
    "    local at = t\n"
    "    if len > 0 then at = math.max(at, stamp(-1)) end\n"
    "    if len >= n then at = math.max(at, stamp(len - n) + z.w + z.g) end\n"
    "    if op ~= 'book' and at > now then\n"
    "      if op == 'now' and got == 0 then return nil end\n"
    "      break\n"
    "    end\n"
    "    redis.call('RPUSH', key, string.format('%.17g', at))\n"
    "    len, got, t = len + 1, got + 1, at\n"
    "    if len > n then redis.call('LPOP', key) len = len - 1 end\n"
    "  end\n"
    "  local ms = math.max(math.ceil((t + z.w + z.g - now) / 1000), 0) + 1\n"
    "  if got > 0 then redis.call('PEXPIRE', key, ms) end\n"
    "  return got, t, ms\n"
    "end\n"
    "local function wrun(now, ahead, out, keep)\n"
    "  local from, lead, most = now, nil, 0\n"
    "  for k = 3, #KEYS do\n"
    "    local a = 3 * k\n"
    "    local z, n, u = wz(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])\n"
    "    local got, at, ms = (win == 'fixed' and wfixed or wslide)(KEYS[k],\n"
    "      z, n, u, math.max(from, now), now)\n"
    "    if not got then break end\n"
    "    most = math.max(most, ms)\n"
    "    out[1] = out[1] + 1\n"
    "    if op == 'take' then\n"
    "      out[out[1] + 1], keep[out[1] + 1] = got, got\n"
    "    else\n"
    "      out[out[1] + 1] = math.ceil(at - now)\n"
    "      keep[out[1] + 1] = string.format('%.17g', at)\n"
    "      if at - now > ahead then\n"
    "        lead = lead or at\n"
    "        if KEYS[k + 1] ~= KEYS[k] or at - lead > ahead then break end\n"
    "      end\n"
    "      from = at\n"
    "    end\n"
    "  end\n"
    "  return most\n"
    "end\n"
    "local function wundo(q, was)\n"
    "  for k = 3, #KEYS do\n"
    "    local a = 3 * k\n"
    "    local z, u = wz(ARGV[a]), tonumber(ARGV[a + 2])\n"
    "    local at = tonumber(was[q + k - 1] or '')\n"
    "    if at and win == 'fixed' then\n"
    "      local i, late = wof(at, z)\n"
    "      local s = redis.call('HMGET', KEYS[k], 'x', 'c')\n"
    "      if late then i = wnext(i, z) end\n"
    "      if tonumber(s[1] or '') == i then\n"
    "        redis.call('HSET', KEYS[k], 'c', string.format('%.17g',\n"
    "          math.max((tonumber(s[2] or '') or 0) - u, 0)))\n"
    "      end\n"
    "    elseif at then\n"
    "      redis.call('LREM', KEYS[k], -u, string.format('%.17g', at))\n"
    "    end\n"
    "  end\n"
    "end\n";

static const char tail[] =
    "if op ~= 'book' and op ~= 'take' and op ~= 'now' and op ~= 'undo' then\n"
    "  return 0\n"
    "end\n"
    "local t = redis.call('TIME')\n"
    "local now = tonumber(t[1]) * 1000000 + tonumber(t[2])\n"
    "local out, keep = {0}, {0}\n"
    "local m = redis.call('HMGET', KEYS[2], 's', 'r')\n"
    "if op == 'undo' then\n"
    "  if m[1] ~= ARGV[7] or not m[2] then return 0 end\n"
    "  local q, was = tonumber(ARGV[8]), {}\n"
    "  for w in string.gmatch(m[2], '%S+') do was[#was + 1] = w end\n"
    "  if tonumber(was[1]) <= q then return 0 end\n"
    "  if win then wundo(q, was) end\n"
    "  for k = 3 + (ti ~= '' and 1 or 0), win and 0 or #KEYS do\n"
    "    local a = 3 * (k - (ti ~= '' and 1 or 0))\n"
    "    local b = redis.call('HMGET', KEYS[k], 't')\n"
    "    local tat = tonumber(b[1] or '')\n"
    "    if tat then\n"
    "      redis.call('HSET', KEYS[k], 't', string.format('%.17g',\n"
    "        tat - tonumber(ARGV[a + 2]) * tonumber(ARGV[a])))\n"
    "    end\n"
    "  end\n"
    "  was[1] = tostring(q)\n"
    "  redis.call('HSET', KEYS[2], 'r', table.concat(was, ' ', 1, q + 1))\n"
    "  return 0\n"
    "end\n"
    "if m[1] == ARGV[7] and m[2] then\n"
    "  out = {}\n"
    "  for w in string.gmatch(m[2], '%S+') do\n"
    "    local x = tonumber(w)\n"
    "    if op ~= 'take' and #out > 0 then\n"
    "      x = math.ceil(math.max(x - now, 0))\n"
    "    end\n"
    "    out[#out + 1] = x\n"
    "  end\n"
    "  return out\n"
    "end\n"
    "local ahead, from, most, lead = tonumber(ARGV[8]), now, 0, nil\n"
    "local tot = ti ~= '' and 1 or 0\n"
    "local function fetch(p)\n"
    "  local b = redis.call('HMGET', KEYS[p.k], 't', 'i', 'h')\n"
    "  local tat = tonumber(b[1] or '0') or 0\n"
    "  if tat ~= tat or tat == math.huge then tat = 0 end\n"
    "  local was = tonumber(b[2] or '')\n"
    "  if tat > now and was and was > 0 and was ~= p.iv then\n"
    "    tat = now + (tat - now) * p.iv / was\n"
    "    redis.call('HSET', KEYS[p.k], 't', string.format('%.17g', tat),\n"
    "      'i', p.ivt)\n"
    "  end\n"
    "  local h = tonumber(b[3] or '')\n"
    "  if h and h > now and h < now + 86400e6 then\n"
    "    tat = math.max(tat, h + (p.burst - 1) * p.iv)\n"
    "  end\n"
    "  p.tat = math.max(tat, from)\n"
    "end\n"
    "local function charge(p, units)\n"
    "  local ttl = math.ceil((p.tat + units * p.iv - now) / 1000) + 1\n"
    "  redis.call('HSET', KEYS[p.k], 't',\n"
    "    string.format('%.17g', p.tat + units * p.iv), 'i', p.ivt)\n"
    "  redis.call('PEXPIRE', KEYS[p.k], ttl)\n"
    "  most = math.max(most, ttl)\n"
    "end\n"
    "if win then most = wrun(now, ahead, out, keep) end\n"
    "local own = {}\n"
    "local pair = {own, {k = 3, ivt = ti, iv = tonumber(ti),\n"
    "  burst = tonumber(tb)}}\n"
    "for k = 3 + tot, win and 0 or #KEYS do\n"
    "  local a, at = 3 * (k - tot), from\n"
    "  local units = tonumber(ARGV[a + 2])\n"
    "  own.k, own.ivt, own.iv = k, ARGV[a], tonumber(ARGV[a])\n"
    "  own.burst = tonumber(ARGV[a + 1])\n"
    "  local first = own.iv and 1 or 2\n"
    "  for i = first, 1 + tot do\n"
    "    local p = pair[i]\n"
    "    fetch(p)\n"
    "    local room = math.floor((now + p.burst * p.iv - p.tat) / p.iv)\n"
    "    if op == 'take' and room < units then units = math.max(room, 0) end\n"
    "    at = math.max(at, p.tat + (units - p.burst) * p.iv)\n"
    "  end\n"
    "  if op == 'now' and at > now then break end\n"
    "  for i = first, 1 + tot do\n"
    "    local p = pair[i]\n"
    "    if tot == 1 and op ~= 'take' then p.tat = math.max(p.tat, at) end\n"
    "    if units > 0 then charge(p, units) end\n"
    "  end\n"
    "  out[1] = out[1] + 1\n"
    "  if op == 'take' then\n"
    "    out[out[1] + 1] = units\n"
    "    keep[out[1] + 1] = units\n"
    "  else\n"
    "    out[out[1] + 1] = math.ceil(at - now)\n"
    "    keep[out[1] + 1] = string.format('%.17g', at)\n"
    "    if at - now > ahead then\n"
    "      lead = lead or at\n"
    "      if KEYS[k + 1] ~= KEYS[k] or at - lead > ahead then break end\n"
    "    end\n"
    "    from = at\n"
    "  end\n"
    "end\n"
    "keep[1] = out[1]\n"
    "hold(most)\n"
    "redis.call('HSET', KEYS[2], 's', ARGV[7], 'r', table.concat(keep, ' '))\n"
    "redis.call('PEXPIRE', KEYS[2], 60000)\n"
    "return out\n";

/* ISO C promises string literals of 4095 bytes: four, joined once. */
static const char *const parts[] = { head, wins, wins2, tail };
static char whole[sizeof head + sizeof wins + sizeof wins2 + sizeof tail - 3];

const struct redis_script *
bucket_script(void)
{
	static struct redis_script s;

	if (s.text == NULL) {
		size_t at = 0;

		for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
			size_t n = strlen(parts[i]);

			memcpy(whole + at, parts[i], n);
			at += n;
		}
		whole[at] = '\0';
		s = (struct redis_script){ whole, at };
	}
	return &s;
}

/* The rate of booking b: its key's, or the bucket's own. */
const struct redis_rate *
bucket_rate_of(const struct redis *r, const struct booking *b)
{
	return b->rate != NULL ? b->rate : &r->share.own;
}

/*
 * The names of the buckets of b[asked[0..m)], end to end in r->keys.names, the
 * length of each in lens: a key's own, or without one the bucket
 * selected.
 */
static void
name_buckets(struct redis *r, const struct booking *b, size_t m, size_t *lens)
{
	size_t total = 0, at = 0;

	for (size_t j = 0; j < m; j++) {
		const struct booking *bj = &b[r->call.asked[j]];

		lens[j] = bj->key != NULL ? r->keys.key_base + 1 + bj->key_len :
					    r->keys.key_len;
		if (lens[j] > SIZE_MAX / 4 - total)
			errx(1, "keys of %zu bytes", total);
		total += lens[j];
	}
	if (total > r->keys.names_size) {
		char *p = realloc(r->keys.names, total * 2);

		if (p == NULL)
			err(1, "keys of %zu bytes", total);
		r->keys.names = p;
		r->keys.names_size = total * 2;
	}
	for (size_t j = 0; j < m; j++) {
		const struct booking *bj = &b[r->call.asked[j]];

		if (bj->key == NULL) {
			memcpy(
			    r->keys.names + at, r->keys.key, r->keys.key_len);
		} else {
			memcpy(
			    r->keys.names + at, r->keys.key, r->keys.key_base);
			r->keys.names[at + r->keys.key_base] = ':';
			memcpy(r->keys.names + at + r->keys.key_base + 1,
			    bj->key, bj->key_len);
		}
		at += lens[j];
	}
}

/*
 * The words of the script's call for op, with the buckets of
 * b[asked[0..m)] looking ahead ahead_ns, into r->call.argv; how many.
 */
int
bucket_words(struct redis *r, const char *op, const struct booking *b, size_t m,
    int64_t ahead_ns)
{
	const char **w = r->call.argv;
	size_t *lens = r->call.lens, off = 0;
	int n = 0, first = r->share.total.none ? 5 : 6; /* the first bucket's */

	snprintf(r->call.head[0], sizeof r->call.head[0], "%zu",
	    m + (size_t)first - 3);
	snprintf(
	    r->call.head[1], sizeof r->call.head[1], "%d", SETTINGS_TTL_MS);
	snprintf(r->call.head[2], sizeof r->call.head[2], "%llu",
	    (unsigned long long)r->call.seq);
	snprintf(r->call.head[3], sizeof r->call.head[3], "%lld",
	    (long long)(ahead_ns / 1000));
	name_buckets(r, b, m, lens + first);
	w[n++] = "EVALSHA";
	w[n++] = r->call.sha;
	w[n++] = r->call.head[0];
	w[n++] = r->keys.settings;
	w[n++] = r->keys.last;
	if (!r->share.total.none)
		w[n++] = r->keys.total_key;
	for (size_t j = 0; j < m; j++) {
		w[n++] = r->keys.names + off;
		off += lens[n - 1];
	}
	w[n++] = op;
	w[n++] = r->share.rate_text;
	w[n++] = r->share.unit;
	w[n++] = r->call.head[1];
	w[n++] = r->share.id_i;
	w[n++] = r->share.id_b;
	w[n++] = r->call.head[2];
	w[n++] = r->call.head[3];
	for (size_t j = 0; j < m; j++) {
		const struct booking *bj = &b[r->call.asked[j]];

		snprintf(r->call.units[j], sizeof r->call.units[j], "%llu",
		    (unsigned long long)bj->units);
		w[n++] = bucket_rate_of(r, bj)->interval;
		w[n++] = bucket_rate_of(r, bj)->burst;
		w[n++] = r->call.units[j];
	}
	w[n++] = r->share.total.interval;
	w[n++] = r->share.total.burst;
	w[n++] = r->share.total_text;
	for (int i = 0; i < n; i++)
		if (i < first || i >= first + (int)m)
			lens[i] = strlen(w[i]);
	return n;
}

/*
 * Is Redis asked about booking b: has its key a limit that lets some go,
 * or a key of no limit the total?
 */
bool
bucket_asks(const struct redis *r, const struct booking *b)
{
	return !bucket_rate_of(r, b)->none &&
	    (!bucket_rate_of(r, b)->inf || !r->share.total.none);
}

/* Answer booking b, of no limit (inf) or none, here: due at due_ns. */
void
bucket_answer_here(const struct redis *r, struct booking *b, int64_t due_ns)
{
	b->taken = bucket_rate_of(r, b)->inf ? b->units : 0;
	b->due_ns = due_ns;
}

/* Longest wait believed from Redis: a reply beyond is a broken one. */
#define WAIT_MAX_US (100LL * 365 * 86400 * 1000000)

/*
 * Is rep the script's answer for m buckets, at least least of them (take:
 * for each), each number in range?  Else why says what is not.
 */
bool
bucket_answer_fits(const struct booking *b, const size_t *asked, size_t m,
    bool take, size_t least, const redisReply *rep, char *why, size_t size)
{
	long long k;

	snprintf(why, size, "a reply out of range");
	if (rep->type != REDIS_REPLY_ARRAY || rep->elements < 1 ||
	    rep->element[0]->type != REDIS_REPLY_INTEGER)
		return false;
	k = rep->element[0]->integer;
	if (k < (long long)least || (size_t)k > m || (take && (size_t)k != m) ||
	    rep->elements != (size_t)k + 1)
		return false;
	for (size_t j = 0; j < (size_t)k; j++) {
		const redisReply *e = rep->element[j + 1];

		if (e->type != REDIS_REPLY_INTEGER || e->integer < 0 ||
		    (take && (uint64_t)e->integer > b[asked[j]].units))
			return false;
		if (!take && e->integer > WAIT_MAX_US) {
			snprintf(why, size, "a wait of %lld us", e->integer);
			return false;
		}
	}
	return true;
}

/*
 * Is rep the script's answer for m buckets (take: for each; book: for
 * at least the first)?  As answer_fits says.
 */
bool
bucket_answer_ok(const struct booking *b, const size_t *asked, size_t m,
    bool take, const redisReply *rep, char *why, size_t size)
{
	return bucket_answer_fits(b, asked, m, take, 1, rep, why, size);
}

#else

/* Without hiredis there is nothing here; ISO C wants a declaration. */
typedef int bucketscript_unused;

#endif
