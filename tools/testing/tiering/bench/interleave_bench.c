// SPDX-License-Identifier: GPL-2.0
/*
 * Page-fault cost per page under each interleave flavour, side by side in
 * one boot.  Prints one JSON object per measurement:
 *   {"case": "...", "nodes": N, "ns_per_page": X, "placement": [..]}
 *
 *   interleave_bench policies PAGES REPS   no policy, MPOL_INTERLEAVE at
 *                                           "1 1" and "5 1", and
 *                                           MPOL_WEIGHTED_INTERLEAVE 5:1
 *   interleave_bench scaling PAGES REPS     MPOL_INTERLEAVE over the first
 *                                           2, 4, 8 nodes, weights 1 and 5:1
 *
 * Each case faults PAGES fresh anonymous pages (THP off) REPS times and
 * keeps the fastest run, so that noise under TCG only ever adds time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#define MAX_NODES 16

static long psz;

static void put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, val, strlen(val)) < 0) {
		perror(path);
		exit(1);
	}
	close(fd);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Fastest ns/page over @reps runs; node counts of the last run. */
static double measure(int mode, unsigned long mask, unsigned long pages,
		      int reps, int *count)
{
	double best = 1e30, t;
	void **addrs = calloc(pages, sizeof(*addrs));
	int *status = calloc(pages, sizeof(*status));
	unsigned long i;
	char *buf;
	int r;

	for (r = 0; r < reps; r++) {
		buf = mmap(NULL, pages * psz, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			exit(1);
		madvise(buf, pages * psz, MADV_NOHUGEPAGE);
		if (mode != MPOL_DEFAULT &&
		    mbind(buf, pages * psz, mode, &mask, MAX_NODES + 1, 0)) {
			perror("mbind");
			exit(1);
		}
		t = now_ns();
		for (i = 0; i < pages; i++)
			buf[i * psz] = 1;
		t = (now_ns() - t) / pages;
		if (t < best)
			best = t;
		if (r == reps - 1) {
			for (i = 0; i < pages; i++)
				addrs[i] = buf + i * psz;
			memset(count, 0, sizeof(int) * MAX_NODES);
			if (!move_pages(0, pages, addrs, NULL, status, 0))
				for (i = 0; i < pages; i++)
					if (status[i] >= 0 && status[i] < MAX_NODES)
						count[status[i]]++;
		}
		munmap(buf, pages * psz);
	}
	free(addrs);
	free(status);
	return best;
}

static void emit(const char *name, int nodes, double ns, const int *count)
{
	int n, first = 1;

	printf("{\"case\": \"%s\", \"nodes\": %d, \"ns_per_page\": %.1f, \"placement\": [",
	       name, nodes, ns);
	for (n = 0; n < nodes; n++) {
		printf("%s%d", first ? "" : ", ", count[n]);
		first = 0;
	}
	printf("]}\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *wi = "/sys/kernel/mm/mempolicy/weighted_interleave";
	unsigned long pages, mask;
	int reps, count[MAX_NODES], k, n, round;
	char path[128];
	double ns;

	if (argc != 4) {
		fprintf(stderr, "usage: %s policies|scaling PAGES REPS\n", argv[0]);
		return 2;
	}
	psz = sysconf(_SC_PAGESIZE);
	pages = strtoul(argv[2], NULL, 0);
	reps = atoi(argv[3]);
	put("/sys/kernel/mm/transparent_hugepage/enabled", "never");

	if (!strcmp(argv[1], "policies")) {
		mask = 0x3;
		/*
		 * Interleave the cases over rounds so drift hits all alike;
		 * the report takes medians of per-round ratios.
		 */
		for (round = 0; round < 9; round++) {
			put("/proc/sys/vm/numa_tier_interleave", "1 1");
			ns = measure(MPOL_DEFAULT, 0, pages, reps, count);
			emit("no policy", 2, ns, count);
			ns = measure(MPOL_INTERLEAVE, mask, pages, reps, count);
			emit("MPOL_INTERLEAVE 1 1", 2, ns, count);
			put("/proc/sys/vm/numa_tier_interleave", "5 1");
			ns = measure(MPOL_INTERLEAVE, mask, pages, reps, count);
			emit("MPOL_INTERLEAVE 5 1", 2, ns, count);
			put("/proc/sys/vm/numa_tier_interleave", "1 1");
			snprintf(path, sizeof(path), "%s/node0", wi);
			put(path, "5");
			snprintf(path, sizeof(path), "%s/node1", wi);
			put(path, "1");
			ns = measure(MPOL_WEIGHTED_INTERLEAVE, mask, pages, reps, count);
			emit("MPOL_WEIGHTED_INTERLEAVE 5:1", 2, ns, count);
		}
		return 0;
	}
	for (round = 0; round < 3; round++) {
		for (k = 2; k <= 8; k *= 2) {
			mask = (1UL << k) - 1;
			put("/proc/sys/vm/numa_tier_interleave", "1 1");
			ns = measure(MPOL_INTERLEAVE, mask, pages, reps, count);
			emit("MPOL_INTERLEAVE 1 1", k, ns, count);
			put("/proc/sys/vm/numa_tier_interleave", "5 1");
			ns = measure(MPOL_INTERLEAVE, mask, pages, reps, count);
			emit("MPOL_INTERLEAVE 5 1", k, ns, count);
			for (n = 0; n < k; n++) {
				snprintf(path, sizeof(path), "%s/node%d", wi, n);
				put(path, n < k / 2 ? "5" : "1");
			}
			put("/proc/sys/vm/numa_tier_interleave", "1 1");
			ns = measure(MPOL_WEIGHTED_INTERLEAVE, mask, pages, reps, count);
			emit("MPOL_WEIGHTED_INTERLEAVE 5:1", k, ns, count);
		}
	}
	return 0;
}
