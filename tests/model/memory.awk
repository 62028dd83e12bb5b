# An independent model of the vmem and heap views, for tests/cli/memory.sh:
# it reads the event list (etlreport -f csv of the alloc, heap and process
# events, LF line ends, header dropped) and keeps a page map (one entry a
# 4 KiB page) and a list of live blocks, where the views keep interval
# maps and hash tables.  A process instance begins at its Start or
# DCStart event and is frozen at its End (Process/Stop).
#
# Prints, sorted by the caller:
#	vmem PID START COMMITTED DECOMMITTED OUTSTANDING PEAK COMMITS FREES
#	    BEFORE
#	vpeak PID START PEAK TIME	(TIME the event that first reached it)
#	heap PID START ALLOCATED FREED ALLOCS FREES COUNT OUTSTANDING
#	    UNMATCHED
#	vstack OUTSTANDING	(one a stack with outstanding bytes)
#	hstack COUNT OUTSTANDING
BEGIN {
	FS = ","
	PAGE = 4096
	hexdigits = "0123456789abcdef"
}

function hex(s,    v, i) {
	s = tolower(s)
	sub(/^0x/, "", s)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index(hexdigits, substr(s, i, 1)) - 1
	return v
}

function parse_fields(s,    n, parts, i, kv) {
	delete f
	n = split(s, parts, "; ")
	for (i = 1; i <= n; i++) {
		split(parts[i], kv, "=")
		f[kv[1]] = kv[2]
	}
}

function inst(pid) {
	if (!(pid in cur))
		cur[pid] = pid SUBSEP ""
	used[cur[pid]] = 1
	return cur[pid]
}

function commit(p, base, size, owner,    pg, k) {
	for (pg = base; pg < base + size; pg += PAGE) {
		k = p SUBSEP sprintf("%.0f", pg)
		if (k in page) {
			vout[page[k]] -= PAGE
		} else {
			held[p] += PAGE
			if (owner ~ /before$/)
				before[p] += PAGE
			else
				committed[p] += PAGE
		}
		page[k] = owner
		vout[owner] += PAGE
	}
	if (held[p] > peak[p]) {
		peak[p] = held[p]
		peakt[p] = time
	}
}

function release(p, base, size,    pg, k) {
	for (pg = base; pg < base + size; pg += PAGE) {
		k = p SUBSEP sprintf("%.0f", pg)
		if (k in page) {
			vout[page[k]] -= PAGE
			delete page[k]
			held[p] -= PAGE
			decommitted[p] += PAGE
		}
	}
}

function hfree(p, addr,    k, o) {
	k = p SUBSEP addr
	if (!(k in bsize)) {
		unmatched[p]++
		return
	}
	o = bstack[k]
	hout[o] -= bsize[k]
	hcount[o]--
	live[p] -= bsize[k]
	nlive[p]--
	freed[p] += bsize[k]
	hfrees[p]++
	delete bsize[k]
	delete bstack[k]
	delete bheap[k]
}

function halloc(p, addr, size, heap, owner,    k) {
	k = p SUBSEP addr
	if (k in bsize)
		hfree(p, addr)
	bsize[k] = size
	bstack[k] = owner
	bheap[k] = heap
	hout[owner] += size
	hcount[owner]++
	live[p] += size
	nlive[p]++
	allocated[p] += size
	allocs[p]++
	hused[p] = 1
}

{
	time = $1; image = $2; pid = $3; kind = $6; ev = $8; stack = $9
	parse_fields($10)
	if (kind == "process") {
		if (ev == "Process/Start" || ev == "Process/DCStart") {
			start = ev == "Process/Start" ? time : ""
			if (!(pid in cur) || ev == "Process/Start")
				cur[pid] = pid SUBSEP start
			name[cur[pid]] = image
		} else if (ev == "Process/Stop" && (pid in cur))
			ended[cur[pid]] = 1
		next
	}
	p = inst(pid)
	if (p in ended)
		next
	if (!(p in name))
		name[p] = image
	owner = name[p] SUBSEP stack
	if (kind == "alloc") {
		flags = hex(f["flags"])
		if (ev ~ /VirtualAllocDCStart$/) {
			vused[p] = 1
			commit(p, hex(f["base"]), f["commit_size"] + 0,
			    name[p] SUBSEP "before")
		} else if (ev ~ /VirtualAlloc$/ && int(flags / 4096) % 2) {
			vused[p] = 1
			commits[p]++
			commit(p, hex(f["base"]), f["size"] + 0, owner)
		} else if (ev ~ /VirtualFree$/ && int(flags / 16384) % 4) {
			vused[p] = 1
			vfrees[p]++
			release(p, hex(f["base"]), f["size"] + 0)
		}
	} else if (kind == "heap") {
		if (ev ~ /Heap\/Alloc$/)
			halloc(p, f["address"], f["size"] + 0, f["heap"], owner)
		else if (ev ~ /Heap\/ReAlloc$/) {
			hused[p] = 1
			hfree(p, f["old_address"])
			halloc(p, f["address"], f["size"] + 0, f["heap"], owner)
		} else if (ev ~ /Heap\/Free$/) {
			hused[p] = 1
			hfree(p, f["address"])
		} else if (ev ~ /Heap\/Destroy$/) {
			hused[p] = 1
			n = 0
			for (k in bheap) {
				split(k, kp, SUBSEP)
				if (kp[1] SUBSEP kp[2] == p &&
				    bheap[k] == f["heap"])
					doomed[++n] = kp[3]
			}
			for (i = 1; i <= n; i++)
				hfree(p, doomed[i])
		}
	}
}

END {
	for (p in vused) {
		split(p, q, SUBSEP)
		printf "vmem %s %s %.0f %.0f %.0f %.0f %d %d %.0f\n", q[1],
		    q[2] == "" ? "-" : q[2], committed[p], decommitted[p],
		    held[p], peak[p], commits[p], vfrees[p], before[p]
		if (peak[p] > 0)
			printf "vpeak %s %s %.0f %s\n", q[1],
			    q[2] == "" ? "-" : q[2], peak[p], peakt[p]
	}
	for (p in hused) {
		split(p, q, SUBSEP)
		printf "heap %s %s %.0f %.0f %d %d %d %.0f %d\n", q[1],
		    q[2] == "" ? "-" : q[2], allocated[p], freed[p],
		    allocs[p], hfrees[p], nlive[p], live[p], unmatched[p]
	}
	for (o in vout)
		if (vout[o] != 0)
			printf "vstack %.0f\n", vout[o]
	for (o in hout)
		if (hcount[o] != 0)
			printf "hstack %d %.0f\n", hcount[o], hout[o]
}
