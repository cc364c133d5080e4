# An independent model of fcfs on P identical single-unit nodes, from the
# SWF rules alone (t0050): prints "id,start" for every job that runs.
# Usage: fcfs-model.py TRACE.swf P
import sys, heapq
P = int(sys.argv[2])
jobs = []
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0].startswith(';'):
        continue
    jid, submit, run, alloc, req, reqt = (int(f[0]), int(f[1]), int(f[3]),
                                          int(f[4]), int(f[7]), int(f[8]))
    size = req if req > 0 else alloc
    dur = reqt if reqt > 0 else run
    if run < 0 or size <= 0 or submit < 0 or size > P:
        continue
    jobs.append((submit, jid, size, min(run, dur)))
jobs.sort()
ends = []  # heap of (end, size)
free = P
prev = 0
for submit, jid, size, run in jobs:
    t = max(submit, prev)
    while True:
        while ends and ends[0][0] <= t:
            free += heapq.heappop(ends)[1]
        if free >= size:
            break
        t = ends[0][0]
    free -= size
    heapq.heappush(ends, (t + run, size))
    prev = t
    print("%d,%d" % (jid, t))
