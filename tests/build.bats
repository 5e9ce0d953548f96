#!/usr/bin/env bats
# The Makefile: install and uninstall with DESTDIR and PREFIX, stripping,
# the source tarball, REDIS= and the flags a build remembers; the Debian
# package's version.  Each runs in a copy of the source, so the build under
# test is left alone.

load helpers

# Each test builds the tool again, once or twice, the whole of it under
# ASan in one: on a busy machine (the suite four files at a time, beside
# other work, under ASan in CI) that may take minutes.
BATS_TEST_TIMEOUT=600
# Nor must they take the variables of the make that runs the suite (make
# check CC=musl-gcc REDIS=no passes them on, in MAKEFLAGS and in the
# environment both).
unset MAKEFLAGS MFLAGS MAKELEVEL CC CFLAGS CPPFLAGS LDFLAGS SAN REDIS TLS \
    PORTABLE

# A build uses every CPU, as a packager's would.
J=-j$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

setup_file() {
	local top=$BATS_TEST_DIRNAME/..
	# The make that runs the suite (make check CC=musl-gcc REDIS=no) must
	# not pass its variables to the builds these tests make.
	unset MAKEFLAGS MFLAGS MAKELEVEL CC CFLAGS CPPFLAGS LDFLAGS SAN REDIS \
	    TLS PORTABLE
	# The tests build in one copy of the source: one at a time.
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	export SRC=$BATS_FILE_TMPDIR/src
	mkdir -p "$SRC"
	cp -r "$top"/{Makefile,LICENSE,README.md,.clang-format,src,man,completion,examples,tests,bench,debian} \
	    "$SRC"/
	rm -f "$SRC"/src/*.o "$SRC"/src/*/*.o "$SRC"/tbthrottle "$SRC"/tests/unit/run \
	    "$SRC"/tests/stamp
	make -C "$SRC" "$J" -s CFLAGS=-O0 >/dev/null 2>&1
}

@test "make install DESTDIR=… PREFIX=/usr: binary, man page, the three completions, the README and the example; uninstall removes them" {
	local d=$BATS_TEST_TMPDIR/root comp zcomp fcomp ex
	make -C "$SRC" "$J" -s CFLAGS=-O0 install DESTDIR="$d" PREFIX=/usr \
	    BASHCOMPDIR=/usr/share/bash-completion/completions
	[[ -x $d/usr/bin/tbthrottle ]]
	[[ -f $d/usr/share/man/man1/tbthrottle.1 ]]
	comp=$d/usr/share/bash-completion/completions/tbthrottle
	zcomp=$d/usr/share/zsh/vendor-completions/_tbthrottle
	fcomp=$d/usr/share/fish/vendor_completions.d/tbthrottle.fish
	[[ -f $comp && -f $zcomp && -f $fcomp ]]
	if command -v zsh >/dev/null; then zsh -n "$zcomp"; fi
	if command -v fish >/dev/null; then fish -n "$fcomp"; fi
	ex=$d/usr/share/doc/tbthrottle/examples/curl-retry
	[[ -x $ex ]]
	cmp "$ex" "$SRC/examples/curl-retry"
	cmp "$d/usr/share/doc/tbthrottle/README.md" "$SRC/README.md"
	"$d/usr/bin/tbthrottle" --version
	make -C "$SRC" "$J" -s CFLAGS=-O0 uninstall DESTDIR="$d" PREFIX=/usr \
	    BASHCOMPDIR=/usr/share/bash-completion/completions
	[[ ! -e $d/usr/bin/tbthrottle && ! -e $comp ]]
	[[ ! -e $zcomp && ! -e $fcomp ]]
	[[ ! -e $ex && ! -e $d/usr/share/doc/tbthrottle ]]
	[[ ! -e $d/usr/share/man/man1/tbthrottle.1 ]]
}

@test "make install: ZSHCOMPDIR and FISHCOMPDIR choose where the zsh and fish completions go" {
	local d=$BATS_TEST_TMPDIR/root
	make -C "$SRC" "$J" -s CFLAGS=-O0 install DESTDIR="$d" PREFIX=/opt/tb \
	    BASHCOMPDIR=/b ZSHCOMPDIR=/z FISHCOMPDIR=/f
	[[ -f $d/b/tbthrottle && -f $d/z/_tbthrottle && -f $d/f/tbthrottle.fish ]]
	[[ ! -e $d/opt/tb/share/zsh && ! -e $d/opt/tb/share/fish ]]
	make -C "$SRC" "$J" -s CFLAGS=-O0 uninstall DESTDIR="$d" PREFIX=/opt/tb \
	    BASHCOMPDIR=/b ZSHCOMPDIR=/z FISHCOMPDIR=/f
	[[ ! -e $d/z/_tbthrottle && ! -e $d/f/tbthrottle.fish ]]
}

@test "make install-strip installs a binary without symbols" {
	command -v file >/dev/null || skip "file(1) is not installed"
	local d=$BATS_TEST_TMPDIR/root
	# Built without -g the binary still has its symbol table: stripping
	# is what takes it away.
	make -C "$SRC" "$J" -s CFLAGS=-O0 install-strip DESTDIR="$d" \
	    PREFIX=/usr BASHCOMPDIR=/usr/share/bash-completion/completions
	run -0 file "$d/usr/bin/tbthrottle"
	[[ $output == *", stripped"* ]] || { echo "$output" >&2; false; }
	run -0 file "$SRC/tbthrottle"
	[[ $output == *", not stripped"* ]] || { echo "$output" >&2; false; }
}

# One object is enough to show what a change of flags rebuilds: the whole
# tool again, four times, would be minutes on a busy machine.
@test "changing SAN= or CFLAGS rebuilds; the same flags rebuild nothing" {
	make -C "$SRC" "$J" -s CFLAGS=-O0 >/dev/null 2>&1
	run -0 make -C "$SRC" CFLAGS=-O0
	[[ $output != *"-c -o src/"* ]] || { echo "$output" >&2; false; }
	run -0 make -C "$SRC" CFLAGS=-O1 src/run/engine.o
	[[ $output == *"-O1 "*"-c -o src/run/engine.o"* ]] || { echo "$output" >&2; false; }
	run -0 make -C "$SRC" CFLAGS=-O1 src/run/engine.o
	[[ $output != *"-c -o src/"* ]] || { echo "$output" >&2; false; }
	run -0 make -C "$SRC" CFLAGS=-O1 CPPFLAGS=-DSOMETHING src/run/engine.o
	[[ $output == *"-DSOMETHING"*"-c -o src/run/engine.o"* ]] ||
	    { echo "$output" >&2; false; }
	run -0 make -C "$SRC" -n CFLAGS=-O1 SAN=1 src/run/engine.o
	[[ $output == *"-fsanitize=address,undefined"*"-c -o src/run/engine.o"* ]] ||
	    { echo "$output" >&2; false; }
}

@test "REDIS=no says once that Redis support is left out; REDIS=yes without hiredis fails clearly" {
	run -0 make -C "$SRC" "$J" CFLAGS=-O0 REDIS=no
	[[ $output == *"tbthrottle: built without Redis support (REDIS=no)"* ]] ||
	    { echo "$output" >&2; false; }
	run -2 env PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_PATH= \
	    make -C "$SRC" CFLAGS=-O0 REDIS=yes
	[[ $output == *"REDIS=yes, but pkg-config finds no hiredis"* ]] ||
	    { echo "$output" >&2; false; }
}

@test "make dist: a tarball, with the completions, the example and debian/, that unpacks, builds and runs its unit tests" {
	local d=$BATS_TEST_TMPDIR version
	version=$(sed -n 's/^#define TBTHROTTLE_VERSION[^"]*"\(.*\)"/\1/p' \
	    "$SRC/src/cli/options.h")
	run -0 make -C "$SRC" "$J" -s CFLAGS=-O0 dist
	[[ -f $SRC/tbthrottle-$version.tar.gz ]]
	tar -xzf "$SRC/tbthrottle-$version.tar.gz" -C "$d"
	[[ -f $d/tbthrottle-$version/LICENSE ]]
	[[ -f $d/tbthrottle-$version/completion/tbthrottle.zsh ]]
	[[ -f $d/tbthrottle-$version/completion/tbthrottle.fish ]]
	[[ -x $d/tbthrottle-$version/examples/curl-retry ]]
	[[ -x $d/tbthrottle-$version/debian/rules ]]
	[[ -f $d/tbthrottle-$version/debian/source/format ]]
	make -C "$d/tbthrottle-$version" "$J" -s CFLAGS=-O0 tbthrottle \
	    tests/unit/run >/dev/null 2>&1
	run -0 "$d/tbthrottle-$version/tests/unit/run"
	# The last line counts; one before may say what was not compared.
	[[ ${lines[-1]} == "unit: "*" passed, 0 failed" ]]
}

@test "debian/changelog's newest version is the tool's version" {
	local version changelog
	version=$(sed -n 's/^#define TBTHROTTLE_VERSION[^"]*"\(.*\)"/\1/p' \
	    "$SRC/src/cli/options.h")
	changelog=$(sed -n '1s/^tbthrottle (\([^)]*\)).*/\1/p' \
	    "$SRC/debian/changelog")
	[[ -n $version ]]
	assert_eq "$changelog" "$version" "debian/changelog"
}

@test "the package's tests, when they fail, name DEB_BUILD_OPTIONS=nocheck; nocheck leaves them out" {
	[[ -f /usr/share/dpkg/pkg-info.mk ]] ||
	    skip "dpkg-dev is not installed (apt-get install dpkg-dev)"
	# MAKE=false: a make check-package that fails, at once.
	run -2 --separate-stderr make -s -C "$SRC" -f debian/rules \
	    override_dh_auto_test MAKE=false
	assert_eq "${stderr_lines[0]}" "make deb: the tests failed (above);\
 DEB_BUILD_OPTIONS=nocheck builds the package without them" "stderr"
	DEB_BUILD_OPTIONS=nocheck run -0 make -s -C "$SRC" -f debian/rules \
	    override_dh_auto_test MAKE=false
}
