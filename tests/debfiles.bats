#!/usr/bin/env bats
# tests/tools/debfiles.sh, which make deb runs on the package it built:
# each file the package must hold and lacks is named.  On small packages
# made here with dpkg-deb.

load helpers

# make_deb FILE...: a package holding FILEs (paths under /), in $DEB.
make_deb() {
	local root=$BATS_TEST_TMPDIR/root f
	mkdir -p "$root/DEBIAN"
	printf '%s\n' 'Package: tbthrottle' 'Version: 9.9.9' 'Architecture: all' \
	    'Maintainer: t <t@example.org>' 'Description: t' >"$root/DEBIAN/control"
	for f in "$@"; do
		mkdir -p "$root${f%/*}"
		echo x >"$root$f"
	done
	DEB=$BATS_TEST_TMPDIR/t.deb
	dpkg-deb --root-owner-group -b "$root" "$DEB" >/dev/null
}

ALL=(/usr/bin/tbthrottle /usr/share/man/man1/tbthrottle.1.gz
    /usr/share/bash-completion/completions/tbthrottle
    /usr/share/zsh/vendor-completions/_tbthrottle
    /usr/share/fish/vendor_completions.d/tbthrottle.fish
    /usr/share/doc/tbthrottle/README.md.gz
    /usr/share/doc/tbthrottle/examples/curl-retry
    /usr/share/doc/tbthrottle/copyright)

@test "debfiles: a package with every file passes, compressed or not" {
	command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed"
	make_deb "${ALL[@]}"
	run -0 --separate-stderr sh "$BATS_TEST_DIRNAME/tools/debfiles.sh" "$DEB"
	assert_eq "$stderr" "" "stderr"
	rm -rf "$BATS_TEST_TMPDIR/root"
	make_deb "${ALL[@]/README.md.gz/README.md}"
	run -0 --separate-stderr sh "$BATS_TEST_DIRNAME/tools/debfiles.sh" "$DEB"
}

@test "debfiles: each file the package lacks is named" {
	command -v dpkg-deb >/dev/null || skip "dpkg-deb is not installed"
	make_deb "${ALL[@]:0:5}" /usr/share/doc/tbthrottle/copyright
	run -1 --separate-stderr sh "$BATS_TEST_DIRNAME/tools/debfiles.sh" "$DEB"
	assert_eq "$stderr" "debfiles: $DEB lacks /usr/share/doc/tbthrottle/README.md
debfiles: $DEB lacks /usr/share/doc/tbthrottle/examples/curl-retry" "stderr"
}
