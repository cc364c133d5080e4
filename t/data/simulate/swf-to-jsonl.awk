# SPDX-License-Identifier: LGPL-3.0-or-later
# A SWF trace as respol JSON lines, the first max (-v max=N) jobs: each
# job asks its size as slots of one core, with its duration, as respol
# simulate reads the SWF (doc/formats.md: size, duration, run; a job of
# unknown run time or no size skipped).
!/^;/ && NF == 18 && $4 >= 0 && $2 >= 0 && n < max {
	size = $8 > 0 ? $8 : $5
	d = $9 > 0 ? $9 : $4
	if (size <= 0)
		next
	n++
	printf "{\"id\":%d,\"submit\":%d,\"runtime\":%d,\"jobspec\":" \
		"{\"version\":1,\"resources\":[{\"type\":\"slot\",\"count\":%d," \
		"\"label\":\"task\",\"with\":[{\"type\":\"core\",\"count\":1}]}]," \
		"\"tasks\":[{\"command\":[\"job\"],\"slot\":\"task\"," \
		"\"count\":{\"per_slot\":1}}]," \
		"\"attributes\":{\"system\":{\"duration\":%d}}}}\n",
		$1, $2, $4 < d ? $4 : d, size, d
}
