# tbthrottle: see README.md.  GNU make; the targets are listed in README.md.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# The README and the examples (examples/curl-retry), beside the package's
# other docs.
DOCDIR ?= $(PREFIX)/share/doc/tbthrottle
# Where bash-completion looks, when it is installed; else under PREFIX.
BASHCOMPDIR ?= $(shell pkg-config --variable=completionsdir bash-completion \
	2>/dev/null || echo $(PREFIX)/share/bash-completion/completions)
# Where Debian's zsh and fish look for the completions of packages (zsh
# elsewhere: ZSHCOMPDIR=$(PREFIX)/share/zsh/site-functions).
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
VERSION := $(shell sed -n 's/^\#define TBTHROTTLE_VERSION[^"]*"\(.*\)"/\1/p' \
	src/cli/options.h)
CC ?= cc
CFLAGS ?= -O2 -g
WARNFLAGS = -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wwrite-strings -Wvla
STDFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L
# The layers, bottom to top, a folder each under src/ (README.md, How it is
# built).  Each folder is searched for quoted includes only (-iquote), so an
# #include names a file, not its folder, and no header of ours can hide a
# system header of the same name (tests/lint/layers.sh refuses one anyway).
LAYERS = base cli report sys limit net ctl store policy run
INCLUDES = $(LAYERS:%=-iquote src/%)
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
endif
# PORTABLE=1: every path that only Linux has switched off (splice(2) and
# pipe sizes, clock_nanosleep(2), SO_PEERCRED, the timer slack), so that
# the fallbacks other systems take are built and tested here.
ifeq ($(PORTABLE),1)
PORTFLAGS = -DTB_PORTABLE
endif
ALL_CFLAGS = $(STDFLAGS) $(WARNFLAGS) $(SANFLAGS) $(PORTFLAGS) $(CFLAGS)

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
# TLS for rediss:// when pkg-config finds OpenSSL too; TLS=no leaves it
# out, and rediss:// then says so.
TLS ?= auto
ifeq ($(HIREDIS),yes)
ifneq ($(TLS),no)
OPENSSL := $(shell pkg-config --exists openssl 2>/dev/null && echo yes)
endif
endif
ifeq ($(OPENSSL),yes)
TLS_CFLAGS = -DHAVE_OPENSSL $(shell pkg-config --cflags openssl)
TLS_LIBS = $(shell pkg-config --libs openssl)
endif
ifeq ($(HIREDIS),yes)
REDIS_CFLAGS = -DHAVE_HIREDIS $(shell pkg-config --cflags hiredis)
REDIS_LIBS = $(shell pkg-config --libs hiredis) $(TLS_LIBS)
REDIS_NOTE = :
else
REDIS_NOTE = echo "tbthrottle: built without Redis support ($(if \
	$(filter no,$(REDIS)),REDIS=no,no hiredis found by pkg-config))"
endif
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)

# Everything built depends on the flags it was built with, so that
# changing SAN=, REDIS=, CC, CFLAGS or CPPFLAGS rebuilds it.
BUILD_FLAGS = $(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(REDIS_CFLAGS) \
	$(TLS_CFLAGS) $(ALL_LDFLAGS) $(REDIS_LIBS)
.build-flags: FORCE
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' >$@

# The pure modules, whose folders make no system calls, and the pure files
# of the other folders (the readers of what another party sends us, kept
# beside what they serve; tests/lint/layers.sh holds them pure too): unit tested
# with a fake clock.  Then every module of the tool.
PURE_LAYERS = base cli report limit policy
PURE_FILES = src/ctl/request.o src/store/eviction.o src/store/slidering.o
PURE = $(patsubst %.c,%.o,$(foreach d,$(PURE_LAYERS), \
	$(wildcard src/$(d)/*.c))) $(PURE_FILES)
OBJS = $(patsubst %.c,%.o,$(foreach d,$(LAYERS),$(wildcard src/$(d)/*.c))) \
	src/main.o
HDRS = $(wildcard src/*/*.h)
# The unit tests, a file per module tested; their binary is tests/unit/run.
UNIT = $(wildcard tests/unit/*.c)

all: tbthrottle

tbthrottle: $(OBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LDLIBS) $(REDIS_LIBS) -lm
	@$(REDIS_NOTE)

src/%.o: src/%.c $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(INCLUDES) -c -o $@ $<

# The files that speak to Redis through hiredis, and the one that speaks
# TLS through OpenSSL, each with its library's flags.
REDIS_OBJS = src/store/redis.o src/store/bucketscript.o \
	src/store/redisscript.o src/store/redisshard.o src/store/fanout.o \
	src/store/redissetup.o src/store/redisbook.o src/store/redisadapt.o \
	src/store/redisshow.o \
	src/net/redisconn.o \
	src/net/errand.o src/net/login.o src/net/cluster.o src/net/sentinel.o \
	src/net/reply.o
$(REDIS_OBJS): src/%.o: src/%.c $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(INCLUDES) $(REDIS_CFLAGS) -c -o $@ $<

src/net/tls.o: src/net/tls.c $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(INCLUDES) $(TLS_CFLAGS) -c -o $@ $<

tests/unit/run: $(UNIT) tests/unit/unit.h $(PURE) $(HDRS) .build-flags
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(INCLUDES) $(ALL_LDFLAGS) -o $@ \
		$(UNIT) $(PURE) -lm

# The system tests' timestamping receiver.  It measures and is not under
# test, so it is built without SAN's sanitizers, like bench/recv.
tests/tools/stamp: tests/tools/stamp.c
	$(CC) $(CPPFLAGS) $(STDFLAGS) $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		tests/tools/stamp.c

# Clients that connect to a control socket and say nothing, for
# tests/control.bats; not under test either.
tests/tools/silent: tests/tools/silent.c
	$(CC) $(CPPFLAGS) $(STDFLAGS) $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		tests/tools/silent.c

# A listener that is not Redis, for the Redis tests; not under test either.
tests/tools/fakeserver: tests/tools/fakeserver.c
	$(CC) $(CPPFLAGS) $(STDFLAGS) $(WARNFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
		tests/tools/fakeserver.c

# Most tests sleep: with GNU parallel, bats runs four at a time, in a third
# of the time.  BATS_JOBS=1 runs them one by one.
BATS_JOBS ?= $(shell command -v parallel >/dev/null 2>&1 && echo 4 || echo 1)

# tests/build.bats builds copies of the source with flags of its own:
# BUILD_TESTS=no leaves it out of a second run of the suite for another
# build of the tool (CI's ASan and musl runs), which it would only repeat.
BUILD_TESTS ?= yes
CHECK_FILES = $(if $(filter no,$(BUILD_TESTS)), \
	$(filter-out tests/build.bats,$(wildcard tests/*.bats)),tests)

check: tbthrottle tests/unit/run tests/tools/stamp tests/tools/fakeserver tests/tools/silent
	./tests/unit/run
	bats --timing --jobs $(BATS_JOBS) $(CHECK_FILES)

# The package's test (debian/rules): make check, but a test that fails is
# run once more on its own, saying so (tests/tools/recheck.sh), so that a
# busy build machine fails the build only on a test that fails twice.
check-package: tbthrottle tests/unit/run tests/tools/stamp tests/tools/fakeserver tests/tools/silent
	./tests/unit/run
	bash tests/tools/recheck.sh $(BATS_JOBS) $(CHECK_FILES)

# make check again beside two CPU-bound processes, as on a shared machine:
# a test that fails only there is a broken test (or a real bug).
check-busy: tbthrottle tests/unit/run tests/tools/stamp tests/tools/fakeserver tests/tools/silent
	sh tests/tools/busy.sh $(MAKE) check

install: tbthrottle
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
		$(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DOCDIR)/examples
	install -m 755 $(INSTALL_STRIP) tbthrottle $(DESTDIR)$(BINDIR)/tbthrottle
	install -m 644 man/tbthrottle.1 $(DESTDIR)$(MANDIR)/man1/tbthrottle.1
	install -m 644 completion/tbthrottle.bash \
		$(DESTDIR)$(BASHCOMPDIR)/tbthrottle
	install -m 644 completion/tbthrottle.zsh \
		$(DESTDIR)$(ZSHCOMPDIR)/_tbthrottle
	install -m 644 completion/tbthrottle.fish \
		$(DESTDIR)$(FISHCOMPDIR)/tbthrottle.fish
	install -m 755 examples/curl-retry \
		$(DESTDIR)$(DOCDIR)/examples/curl-retry
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md

install-strip:
	$(MAKE) INSTALL_STRIP=-s install

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tbthrottle \
		$(DESTDIR)$(MANDIR)/man1/tbthrottle.1 \
		$(DESTDIR)$(BASHCOMPDIR)/tbthrottle \
		$(DESTDIR)$(ZSHCOMPDIR)/_tbthrottle \
		$(DESTDIR)$(FISHCOMPDIR)/tbthrottle.fish \
		$(DESTDIR)$(DOCDIR)/examples/curl-retry \
		$(DESTDIR)$(DOCDIR)/README.md
	rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null || true

# A source tarball of the files git tracks (or, outside a checkout, of
# the source tree), which builds and passes make check on its own; CI's
# files stay out.
dist:
	@files=$$(git ls-files 2>/dev/null | grep -v '^\.ci/\|^\.github/') || \
		true; \
	[ -n "$$files" ] || files=$$(find LICENSE README.md Makefile \
		.clang-format .gitignore bench completion examples man src tests \
		debian/changelog debian/control debian/copyright debian/rules \
		debian/source/format \
		-type f ! -name '*.o' ! -name run ! -name stamp \
		! -name fakeserver ! -name silent ! -name '*-fuzz' ! -name '*.log' \
		! -name recv ! -name floor ! -name count); \
	tar -czf tbthrottle-$(VERSION).tar.gz \
		--transform 's,^,tbthrottle-$(VERSION)/,' $$files
	@echo "tbthrottle-$(VERSION).tar.gz"

# The Debian package, built by dpkg-buildpackage from what make dist
# packs (a clean tree, whatever this one holds), left here with its
# .changes; lintian, where installed, then fails it on an error, and
# tests/tools/debfiles.sh on a file it lacks.
# DEB_BUILD_OPTIONS=nocheck leaves make check out of the build.
# The version and the dates must have moved with the man page first
# (tests/lint/release.sh), or man shows the page cached from before.
deb: dist
	@bash tests/lint/release.sh
	@command -v dpkg-buildpackage >/dev/null || { echo "make deb:" \
		"dpkg-buildpackage is missing (apt-get install dpkg-dev" \
		"debhelper)" >&2; exit 1; }
	@tmp=$$(mktemp -d) && \
	tar -xzf tbthrottle-$(VERSION).tar.gz -C "$$tmp" && \
	(cd "$$tmp/tbthrottle-$(VERSION)" && dpkg-buildpackage -us -uc -b) && \
	mv "$$tmp"/*.deb "$$tmp"/*.buildinfo "$$tmp"/*.changes . ; \
	rc=$$?; rm -rf "$$tmp"; exit $$rc
	@if command -v lintian >/dev/null; then \
		echo "lintian tbthrottle_$(VERSION)_*.changes"; \
		lintian --fail-on error tbthrottle_$(VERSION)_*.changes; \
	else \
		echo "make deb: lintian is not installed; not checked"; \
	fi
	@sh tests/tools/debfiles.sh tbthrottle_$(VERSION)_$$(dpkg \
		--print-architecture).deb
	@ls tbthrottle*_$(VERSION)_*.deb

# The analysers take a file at a time, a process per CPU.
LINT_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
		-j $(LINT_JOBS) \
		--std=c11 -D_POSIX_C_SOURCE=200809L --inline-suppr $(INCLUDES) \
		src tests/unit tests/fuzz bench/recv.c bench/floor.c \
		bench/count.c tests/tools/stamp.c tests/tools/fakeserver.c tests/tools/silent.c
	printf '%s\n' src/*.c src/*/*.c | xargs -P $(LINT_JOBS) -n 8 sh -c \
		'exec clang-tidy --quiet --warnings-as-errors="*" \
		--checks="-*,clang-analyzer-*,-clang-analyzer-security.insecureAPI.*" \
		"$$@" -- $(STDFLAGS) $(INCLUDES) $(REDIS_CFLAGS) $(TLS_CFLAGS)' \
		clang-tidy
	mandoc -Tlint -Wwarning man/tbthrottle.1
	bash tests/lint/layers.sh
	bash tests/lint/sizes.sh
	bash tests/lint/release.sh
	clang-format --dry-run --Werror $(C_FILES)
	bash tests/lint/counts.sh
	shellcheck .ci/run $(wildcard bench/*.sh bench/*.bash tests/*.bash tests/lint/*.sh tests/tools/*.sh)
	shellcheck -s bash completion/tbthrottle.bash
	shellcheck -s sh examples/curl-retry
	@if command -v zsh >/dev/null; then \
		echo "zsh -n completion/tbthrottle.zsh tests/tools/zcomplete.zsh"; \
		zsh -n completion/tbthrottle.zsh && zsh -n tests/tools/zcomplete.zsh; \
	else \
		echo "lint: zsh is not installed: its completion is not checked"; \
	fi
	@if command -v fish >/dev/null; then \
		echo "fish -n completion/tbthrottle.fish"; \
		fish -n completion/tbthrottle.fish; \
	else \
		echo "lint: fish is not installed: its completion is not checked"; \
	fi

valgrind: tbthrottle tests/unit/run
	TB_UNIT_VALGRIND=1 valgrind -q --error-exitcode=1 --leak-check=full \
		./tests/unit/run
	bash tests/tools/valgrind.sh

# Every C file of ours, formatted by .clang-format; lint checks it is.
C_FILES = src/*.c src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h \
	tests/tools/*.c tests/fuzz/*.c bench/recv.c bench/floor.c bench/count.c

format:
	clang-format -i $(C_FILES)

# Fuzzing (clang's libFuzzer): each target for FUZZ_SECONDS, growing its
# corpus in tests/fuzz/corpus/.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS = rate options framer tiers timestamp redisurl request retryafter \
	joblog
FUZZ_CC ?= clang
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all $(STDFLAGS) $(INCLUDES)

# The pure code, instrumented once for every target (not once a target).
FUZZ_OBJS = $(patsubst src/%.o,tests/fuzz/obj/%.o,$(PURE))
.SECONDARY: $(FUZZ_OBJS)

tests/fuzz/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(subst -fsanitize=fuzzer,-fsanitize=fuzzer-no-link,\
		$(FUZZ_FLAGS)) -c -o $@ $<

tests/fuzz/%-fuzz: tests/fuzz/%_fuzz.c $(FUZZ_OBJS) $(HDRS)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(FUZZ_OBJS)

# The targets run side by side, a CPU each; each says how it went.  New
# inputs are added to the corpus, none replaced (-reduce_inputs=0): a
# smaller input of the same coverage would delete a file git tracks, which
# make dist would then miss.
fuzz: $(FUZZ_TARGETS:%=tests/fuzz/%-fuzz)
	@printf '%s\n' $(FUZZ_TARGETS) | xargs -P $(LINT_JOBS) -I{} sh -c '\
		mkdir -p tests/fuzz/corpus/$$1; \
		./tests/fuzz/$$1-fuzz -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 -reduce_inputs=0 \
			tests/fuzz/corpus/$$1 \
			>tests/fuzz/$$1.log 2>&1 || \
			{ echo "== fuzz $$1 FAILED"; \
			tail -n 40 tests/fuzz/$$1.log; exit 255; }; \
		echo "== fuzz $$1 for $(FUZZ_SECONDS) s:" \
			"$$(grep -E "^stat::number_of_executed_units" \
			tests/fuzz/$$1.log)"' fuzz {}

bench/recv: bench/recv.c
	$(CC) $(STDFLAGS) -O2 $(WARNFLAGS) -o $@ bench/recv.c -lm

# The least a throttler can do, for the benchmark to compare CPU with.
bench/floor: bench/floor.c
	$(CC) $(STDFLAGS) -O2 $(WARNFLAGS) -o $@ bench/floor.c

# A benchmark, not a test: several minutes; see bench/RESULTS.md.
# The portable build (PORTABLE=1), made in a copy of the tree so that the
# objects of this one stay as they are.
bench/tbthrottle-portable: $(OBJS:.o=.c) $(HDRS) Makefile
	rm -rf bench/portable.d
	mkdir -p bench/portable.d
	cp -r Makefile src bench/portable.d/
	$(MAKE) -s -C bench/portable.d PORTABLE=1 REDIS=no CC="$(CC)" \
		CFLAGS="$(CFLAGS)" tbthrottle >/dev/null
	cp bench/portable.d/tbthrottle $@
	rm -rf bench/portable.d

bench: tbthrottle bench/recv bench/floor bench/tbthrottle-portable
	TB=./tbthrottle TB_PORTABLE=./bench/tbthrottle-portable \
		bash bench/run.sh

bench-quick: tbthrottle bench/recv bench/floor
	TB=./tbthrottle bash bench/run.sh --quick

# Finding delimiters, against plain loops, in GB/s; a few seconds.
bench/count: bench/count.c src/base/framer.c src/base/framer.h
	$(CC) $(STDFLAGS) -O2 $(WARNFLAGS) $(INCLUDES) -o $@ bench/count.c \
		src/base/framer.c

bench-count: bench/count
	./bench/count

clean:
	rm -f tbthrottle tests/unit/run tests/tools/stamp tests/tools/fakeserver \
		tests/tools/silent src/*.o src/*/*.o \
		bench/recv bench/floor bench/count bench/tbthrottle-portable \
		tests/fuzz/*-fuzz .build-flags \
		tbthrottle-*.tar.gz tbthrottle_*.deb tbthrottle-dbgsym_*.deb \
		tbthrottle_*.buildinfo tbthrottle_*.changes
	rm -rf tests/fuzz/obj

.PHONY: all check check-package check-busy install install-strip uninstall clean lint format bench \
	bench-quick bench-count fuzz valgrind dist deb FORCE
