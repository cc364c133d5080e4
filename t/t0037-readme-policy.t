#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='README "Writing a site policy": the two plugins shown
there build with the command shown and do what the README says'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

README="$RESPOL_SRCDIR/README.md"
command -v cc >/dev/null && command -v pkg-config >/dev/null &&
	pkg-config --exists jansson && test_set_prereq CC
if ! test_have_prereq CC; then
	skip_all='cc, pkg-config and jansson are needed to build a plugin'
	test_done
fi

# The Nth ```c block of the section.
code_block() {
	awk -v want="$1" '
		/^## Writing a site policy/ { in_section = 1; next }
		/^## / { in_section = 0 }
		in_section && /^```c$/ { n++; if (n == want) { copy = 1; next } }
		copy && /^```$/ { exit }
		copy { print }
	' "$README"
}

test_expect_success 'the two plugins build with -Wall -Wextra -Werror' '
	code_block 1 >maxnodes.c &&
	code_block 2 >onejob.c &&
	grep -q "\"maxnodes\"" maxnodes.c &&
	grep -q "\"onejob\"" onejob.c &&
	for f in maxnodes onejob; do
		cc -Wall -Wextra -Werror -shared -fPIC -I"$RESPOL_SRCDIR/api" \
			$(pkg-config --cflags jansson) -o $f.so $f.c || return 1
	done
'
test_expect_success 'the query shown runs as the README shows' '
	cat >site.yaml <<-EOF &&
	validate:
	  - plugin: $(pwd)/maxnodes.so
	    config: {max-nodes: 2}
	  - plugin: $(pwd)/onejob.so
	EOF
	respol jobspec create -N1 -n1 -c1 -t 1h -- app >one.yaml &&
	respol jobspec create -N4 -n4 -t 1h -- app >four.yaml &&
	printf "match allocate --user=daemon one.yaml\nmatch allocate --user=daemon one.yaml\nmatch allocate four.yaml\nfree 1\nschedule\n" |
		test_expect_code 1 respol query -F short --config=site.yaml \
		--generate=nodes=4,cores=4 >out 2>err &&
	sed -n "/^\$ printf .match allocate --user=daemon/,/^\`\`\`\$/p" "$README" |
		sed -e "1,2d" -e "\$d" >shown &&
	cat out err >got &&
	sort shown >shown.sorted &&
	sort got >got.sorted &&
	test_cmp shown.sorted got.sorted
'

test_done
