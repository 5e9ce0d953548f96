# tbthrottle: see README.md.  GNU make; the targets are listed in README.md.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# Where bash-completion looks, when it is installed; else under PREFIX.
BASHCOMPDIR ?= $(shell pkg-config --variable=completionsdir bash-completion \
	2>/dev/null || echo $(PREFIX)/share/bash-completion/completions)
VERSION := $(shell sed -n 's/^\#define TBTHROTTLE_VERSION[^"]*"\(.*\)"/\1/p' \
	src/options.h)
CC ?= cc
CFLAGS ?= -O2 -g
WARNFLAGS = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wwrite-strings -Wvla
STDFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L
# src/ is searched for quoted includes only: with -Isrc,
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
endif
ALL_CFLAGS = $(STDFLAGS) $(WARNFLAGS) $(SANFLAGS) $(CFLAGS)

# Redis support (--redis) when pkg-config finds hiredis; REDIS=yes insists
# on it, REDIS=no leaves it out, and --redis then says so.
REDIS ?= auto
ifneq ($(REDIS),no)
HIREDIS := $(shell pkg-config --exists hiredis 2>/dev/null && echo yes)
endif
ifeq ($(REDIS)$(HIREDIS),yes)
$(error REDIS=yes, but pkg-config finds no hiredis: install libhiredis-dev \
	and pkg-config, or build with REDIS=no)
endif
ifeq ($(HIREDIS),yes)
REDIS_CFLAGS = -DHAVE_HIREDIS $(shell pkg-config --cflags hiredis)
REDIS_LIBS = $(shell pkg-config --libs hiredis)
REDIS_NOTE = :
else
REDIS_NOTE = echo "tbthrottle: built without Redis support ($(if \
	$(filter no,$(REDIS)),REDIS=no,no hiredis found by pkg-config))"
endif
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

# Everything built depends on the flags it was built with, so that
# changing SAN=, REDIS=, CC, CFLAGS or CPPFLAGS rebuilds it.
BUILD_FLAGS = $(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(REDIS_CFLAGS) \
	$(ALL_LDFLAGS) $(REDIS_LIBS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' >$@

# The pure modules: no system calls, unit tested with a fake clock.
PURE = src/batch.o src/bucket.o src/drop.o src/eviction.o src/msg.o \
	src/fixed.o src/framer.o src/gcra.o src/keys.o src/limiter.o \
	src/options.o src/pass.o src/piperoom.o src/policy.o src/queue.o \
	src/redisurl.o src/replay.o src/request.o src/runname.o src/shape.o \
	src/siphash.o src/stats.o src/rate.o src/sliding.o src/tiers.o \
	src/timestamp.o src/wildcard.o
OBJS = $(PURE) src/ask.o src/clock.o src/control.o src/engine.o \
	src/input.o src/limits.o src/main.o src/name.o src/output.o \
	src/redis.o src/redisconn.o src/retune.o src/rundir.o src/shared.o \
	src/signals.o src/splice.o src/stdfd.o src/stream.o src/transport.o \
	src/zone.o
HDRS = $(wildcard src/*.h)
# The unit tests, a file per module tested; their binary is tests/unit/run.
UNIT = $(wildcard tests/unit/*.c)

all: tbthrottle

tbthrottle: $(OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LDLIBS) $(REDIS_LIBS)
	@$(REDIS_NOTE)

src/%.o: src/%.c $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

src/redis.o src/redisconn.o: src/%.o: src/%.c $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(REDIS_CFLAGS) -c -o $@ $<

tests/unit/run: $(UNIT) tests/unit/unit.h $(PURE) $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -iquote src $(ALL_LDFLAGS) -o $@ $(UNIT) \
		$(PURE) -lm

# The system tests' timestamping receiver.  It measures and is not under
# test, so it is built without SAN's sanitizers, like bench/recv.
tests/stamp: tests/stamp.c
	$(CC) $(CPPFLAGS) $(STDFLAGS) $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		tests/stamp.c

# Clients that connect to a control socket and say nothing, for
# tests/control.bats; not under test either.
tests/silent: tests/silent.c
	$(CC) $(CPPFLAGS) $(STDFLAGS) $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		tests/silent.c

# A listener that is not Redis, for the Redis tests; not under test either.
tests/fakeserver: tests/fakeserver.c
	$(CC) $(CPPFLAGS) $(STDFLAGS) $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		tests/fakeserver.c

check: tbthrottle tests/unit/run tests/stamp tests/fakeserver tests/silent
	./tests/unit/run
	bats tests

install: tbthrottle
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(INSTALL_STRIP) tbthrottle $(DESTDIR)$(BINDIR)/tbthrottle
	install -m 644 man/tbthrottle.1 $(DESTDIR)$(MANDIR)/man1/tbthrottle.1
	install -m 644 completion/tbthrottle.bash \
		$(DESTDIR)$(BASHCOMPDIR)/tbthrottle

install-strip:
	$(MAKE) INSTALL_STRIP=-s install

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tbthrottle \
		$(DESTDIR)$(MANDIR)/man1/tbthrottle.1 \
		$(DESTDIR)$(BASHCOMPDIR)/tbthrottle

# A source tarball of the files git tracks (or, outside a checkout, of
# the source tree), which builds and passes make check on its own.
dist:
	@files=$$(git ls-files 2>/dev/null | grep -v '^\.ci/') || true; \
	[ -n "$$files" ] || files=$$(find LICENSE README.md Makefile \
		.clang-format .gitignore bench completion man src tests \
		-type f ! -name '*.o' ! -name run ! -name stamp \
		! -name fakeserver ! -name silent ! -name '*-fuzz' ! -name '*.log' \
		! -name recv ! -name floor ! -name count); \
	tar -czf tbthrottle-$(VERSION).tar.gz \
		--transform 's,^,tbthrottle-$(VERSION)/,' $$files
	@echo "tbthrottle-$(VERSION).tar.gz"

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		--std=c11 -D_POSIX_C_SOURCE=200809L --inline-suppr src tests/unit tests/fuzz \
		bench/recv.c bench/floor.c bench/count.c tests/stamp.c \
		tests/fakeserver.c tests/silent.c
	clang-tidy --quiet --checks='-*,clang-analyzer-*,-clang-analyzer-security.insecureAPI.*' \
		--warnings-as-errors='*' src/*.c -- $(STDFLAGS) -iquote src
	mandoc -Tlint -Wwarning man/tbthrottle.1
	bash tests/layers.sh
	clang-format --dry-run --Werror $(C_FILES)
	shellcheck .ci/run $(wildcard bench/*.sh bench/*.bash tests/*.bash tests/*.sh)
	shellcheck -s bash completion/tbthrottle.bash

valgrind: tbthrottle tests/unit/run
	valgrind -q --error-exitcode=1 --leak-check=full ./tests/unit/run
	bash tests/valgrind.sh

# Every C file of ours, formatted by .clang-format; lint checks it is.
C_FILES = src/*.c src/*.h tests/unit/*.c tests/unit/*.h tests/*.c \
	tests/fuzz/*.c bench/recv.c bench/floor.c bench/count.c

format:
	clang-format -i $(C_FILES)

# Fuzzing (clang's libFuzzer): each target for FUZZ_SECONDS, growing its
# corpus in tests/fuzz/corpus/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = rate options framer tiers timestamp
FUZZ_CC ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(STDFLAGS) -iquote src

tests/fuzz/%-fuzz: tests/fuzz/%_fuzz.c $(PURE:.o=.c) $(HDRS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(PURE:.o=.c)

fuzz: $(FUZZ_TARGETS:%=tests/fuzz/%-fuzz)
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p tests/fuzz/corpus/$$t; \
		echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
		./tests/fuzz/$$t-fuzz -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 tests/fuzz/corpus/$$t \
			>tests/fuzz/$$t.log 2>&1 || \
			{ tail -n 40 tests/fuzz/$$t.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|DONE' \
			tests/fuzz/$$t.log; \
	done

bench/recv: bench/recv.c
	$(CC) $(STDFLAGS) -O2 $(WARNFLAGS) -o $@ bench/recv.c -lm

# The least a throttler can do, for the benchmark to compare CPU with.
bench/floor: bench/floor.c
	$(CC) $(STDFLAGS) -O2 $(WARNFLAGS) -o $@ bench/floor.c

# A benchmark, not a test: several minutes; see bench/RESULTS.md.
bench: tbthrottle bench/recv bench/floor
	TB=./tbthrottle bash bench/run.sh

bench-quick: tbthrottle bench/recv bench/floor
	TB=./tbthrottle bash bench/run.sh --quick

# Finding delimiters, against plain loops, in GB/s; a few seconds.
bench/count: bench/count.c src/framer.c src/framer.h
	$(CC) $(STDFLAGS) -O2 $(WARNFLAGS) -iquote src -o $@ bench/count.c \
		src/framer.c

bench-count: bench/count
	./bench/count

clean:
	rm -f tbthrottle tests/unit/run tests/stamp tests/fakeserver \
		tests/silent src/*.o \
		bench/recv bench/floor bench/count tests/fuzz/*-fuzz .build-flags \
		tbthrottle-*.tar.gz

.PHONY: all check install install-strip uninstall clean lint format bench \
	bench-quick bench-count fuzz valgrind dist FORCE
