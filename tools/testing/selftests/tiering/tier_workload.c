// SPDX-License-Identifier: GPL-2.0
/*
 * Workload for the tiering tests: memory placed on one node, either written
 * once and left alone (cold) or touched continuously (hot), with its data
 * checked at the end and its per-node placement reported with
 * move_pages(2).
 *
 *   tier_workload cold MB NODE          fill, then wait for SIGTERM;
 *                                        exit 0 if the data is intact
 *   tier_workload hot MB NODE SECONDS   touch for SECONDS; every second print
 *                                        "t=<s> node0=<pages> node1=... total=<n>",
 *                                        exit 0 if the data is intact
 *   tier_workload walk MB NODE REPS     time move_pages(2) queries over MB of
 *                                        placed memory; print the best of REPS
 *                                        as "walk_ns_per_page=<ns>"
 *   tier_workload change MB NODE SA SB  two sets of MB each on NODE: touch A
 *                                        for SA seconds, then B for SB seconds;
 *                                        every second print the hot set's
 *                                        report as above with "set=A" or
 *                                        "set=B" after the time, then the
 *                                        other set's counts after "other";
 *                                        exit 0 if both are intact
 *
 * Pages hold a pattern derived from their index, so that a page migrated
 * with wrong contents is found.  Prints "ready" once the memory is placed.
 *
 * By default the memory is placed with MPOL_BIND to NODE, then the VMA
 * goes back to the default policy.  TIER_WORKLOAD_POLICY changes that:
 *   bind        keep the MPOL_BIND to NODE
 *   interleave  MPOL_INTERLEAVE over the nodes of TIER_WORKLOAD_NODES
 *               (a comma-separated list, default "0,1"), kept
 *   none        no mbind(): the task's policy and cpuset place it
 *   task-bind   no mbind(): the process binds itself to NODE with
 *               set_mempolicy() first
 *   thread-bind no mbind(): a second thread binds itself to NODE with
 *               set_mempolicy() and does all the work; the main thread,
 *               which owns the address space, keeps the default policy
 * TIER_WORKLOAD_MLOCK=1 mlocks the memory once placed.  TIER_WORKLOAD_THP=1
 * maps it from a 2 MiB boundary with MADV_HUGEPAGE instead of
 * MADV_NOHUGEPAGE, for transparent huge pages.
 *
 * A hot set flushes its TLB entries after every pass (see below), at most
 * once per TIER_WORKLOAD_TLB_FLUSH_MS milliseconds if that is set, never if
 * TIER_WORKLOAD_NO_TLB_FLUSH is set.
 */
#define _GNU_SOURCE
#include <numaif.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_NODES 8

static int stop;	/* set by the signal handler, __atomic accesses */

static void on_term(int sig)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static uint64_t pattern(unsigned long page, unsigned long word)
{
	return (page * 0x9e3779b97f4a7c15ULL) ^ (word + 1);
}

static void fill(char *buf, unsigned long npages, long psz)
{
	unsigned long p, w;

	for (p = 0; p < npages; p++) {
		uint64_t *q = (uint64_t *)(buf + p * psz);

		for (w = 0; w < psz / 8; w++)
			q[w] = pattern(p, w);
	}
}

static unsigned long check(char *buf, unsigned long npages, long psz)
{
	unsigned long p, w, bad = 0;

	for (p = 0; p < npages; p++) {
		uint64_t *q = (uint64_t *)(buf + p * psz);

		for (w = 0; w < psz / 8; w++)
			if (q[w] != pattern(p, w)) {
				bad++;
				break;
			}
	}
	return bad;
}

/* Passes over the hot set so far (reported, to tell a stalled toucher). */
static unsigned long passes;

/* Count the pages of @buf per node with move_pages(2); 0 or -1. */
static int count_nodes(char *buf, unsigned long npages, long psz,
		       unsigned long *count)
{
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status));
	unsigned long i;
	int ret = -1;

	if (!pages || !status)
		goto out;
	for (i = 0; i < npages; i++)
		pages[i] = buf + i * psz;
	if (move_pages(0, npages, pages, NULL, status, 0))
		goto out;
	memset(count, 0, MAX_NODES * sizeof(*count));
	for (i = 0; i < npages; i++)
		if (status[i] >= 0 && status[i] < MAX_NODES)
			count[status[i]]++;
	ret = 0;
out:
	free(pages);
	free(status);
	return ret;
}

static void print_counts(const unsigned long *count)
{
	int n;

	for (n = 0; n < MAX_NODES; n++)
		if (count[n])
			printf(" node%d=%lu", n, count[n]);
}

/*
 * One line per report: the hot set's pages per node, and in change mode
 * (@label not NULL) the other set's after "other".
 */
static void report(char *buf, unsigned long npages, long psz, double t,
		   const char *label, char *other)
{
	unsigned long count[MAX_NODES], ocount[MAX_NODES];

	if (count_nodes(buf, npages, psz, count))
		return;
	if (other && count_nodes(other, npages, psz, ocount))
		return;
	printf("t=%.1f", t);
	if (label)
		printf(" set=%s", label);
	print_counts(count);
	printf(" total=%lu passes=%lu", npages, passes);
	if (other) {
		printf(" other");
		print_counts(ocount);
		printf(" total=%lu", npages);
	}
	printf("\n");
	fflush(stdout);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Kernel page-table walks and folio lookups, the kind of work a kdamond
 * does per sampled page: the benchmark times them in the VM and on the
 * host to tell how much QEMU TCG slows such kernel code down.
 */
static int walk(char *buf, unsigned long npages, long psz, int reps)
{
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status));
	double best = 0, t;
	unsigned long i;
	int r;

	if (!pages || !status || reps < 1)
		return 2;
	for (i = 0; i < npages; i++)
		pages[i] = buf + i * psz;
	for (r = 0; r < reps; r++) {
		t = now();
		if (move_pages(0, npages, pages, NULL, status, 0))
			return 2;
		t = now() - t;
		if (!r || t < best)
			best = t;
	}
	printf("walk_ns_per_page=%.1f\n", best * 1e9 / npages);
	return 0;
}

/* The node mask of a comma-separated node list. */
static unsigned long parse_nodes(const char *list)
{
	unsigned long mask = 0;
	char *end;
	long n;

	while (*list) {
		n = strtol(list, &end, 10);
		if (end == list || n < 0 || n >= MAX_NODES)
			return 0;
		mask |= 1UL << n;
		list = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return 0;
	}
	return mask;
}

/* Place the memory as TIER_WORKLOAD_POLICY says; 0 or -1. */
static int place(char *buf, unsigned long len, int node, long psz,
		 unsigned long npages)
{
	const char *policy = getenv("TIER_WORKLOAD_POLICY");
	const char *nodes = getenv("TIER_WORKLOAD_NODES");
	unsigned long mask = 1UL << node;

	if (policy && (!strcmp(policy, "none") || !strcmp(policy, "task-bind") ||
		       !strcmp(policy, "thread-bind"))) {
		fill(buf, npages, psz);
		return 0;
	}
	if (policy && !strcmp(policy, "interleave")) {
		mask = parse_nodes(nodes ? nodes : "0,1");
		if (!mask || mbind(buf, len, MPOL_INTERLEAVE, &mask,
				   MAX_NODES + 1, 0))
			return -1;
		fill(buf, npages, psz);
		return 0;
	}
	if (mbind(buf, len, MPOL_BIND, &mask, MAX_NODES + 1, 0))
		return -1;
	fill(buf, npages, psz);
	if (policy && !strcmp(policy, "bind"))
		return 0;
	if (policy && *policy)
		return -1;
	/* Placed: later migrations must not be blocked by the binding. */
	return mbind(buf, len, MPOL_DEFAULT, NULL, 0, 0);
}

/* Read one word per page: keeps every page young.  Counts a pass. */
static void touch(char *buf, unsigned long npages, long psz)
{
	unsigned long p;

	for (p = 0; p < npages; p++)
		if (__atomic_load_n((uint64_t *)(buf + p * psz),
				    __ATOMIC_RELAXED) != pattern(p, 0))
			fprintf(stderr, "page %lu corrupt\n", p);
	passes++;
}

#define THP_SIZE	(2UL << 20)

static char *map_placed(unsigned long npages, long psz, int node)
{
	const char *thp = getenv("TIER_WORKLOAD_THP");
	int huge = thp && !strcmp(thp, "1");
	size_t len = npages * psz, extra = huge ? THP_SIZE : 0;
	char *buf = mmap(NULL, len + extra, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const char *lock = getenv("TIER_WORKLOAD_MLOCK");
	uintptr_t start;

	if (buf == MAP_FAILED)
		return NULL;
	if (huge) {
		/* A mapping of exactly len bytes from a THP boundary. */
		start = ((uintptr_t)buf + THP_SIZE - 1) & ~(THP_SIZE - 1);
		if (start > (uintptr_t)buf)
			munmap(buf, start - (uintptr_t)buf);
		munmap((char *)start + len, (uintptr_t)buf + extra - start);
		buf = (char *)start;
	}
	madvise(buf, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (place(buf, npages * psz, node, psz, npages))
		return NULL;
	if (lock && !strcmp(lock, "1") && mlock(buf, npages * psz))
		return NULL;
	return buf;
}

static int run(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned long mb, npages, bad;
	const char *flush_ms = getenv("TIER_WORKLOAD_TLB_FLUSH_MS");
	double start, last = 0, secs = 0, secs_b = 0, flushed = 0, flush_every;
	int hot, change, node, flush_tlb = !getenv("TIER_WORKLOAD_NO_TLB_FLUSH");
	char *buf, *set_b = NULL, *other = NULL, *cur;
	const char *label = NULL;

	if (argc < 4 || (strcmp(argv[1], "cold") && strcmp(argv[1], "hot") &&
			 (strcmp(argv[1], "walk") || argc < 5) &&
			 (strcmp(argv[1], "change") || argc < 6))) {
		fprintf(stderr, "usage: %s cold MB NODE | hot MB NODE SECONDS\n",
			argv[0]);
		fprintf(stderr, "       %s walk MB NODE REPS\n", argv[0]);
		fprintf(stderr, "       %s change MB NODE SECONDS_A SECONDS_B\n",
			argv[0]);
		return 2;
	}
	change = !strcmp(argv[1], "change");
	hot = change || !strcmp(argv[1], "hot");
	mb = strtoul(argv[2], NULL, 0);
	node = atoi(argv[3]);
	if (hot)
		secs = argc > 4 ? atof(argv[4]) : 60;
	if (change)
		secs_b = atof(argv[5]);
	npages = (mb << 20) / psz;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);

	buf = map_placed(npages, psz, node);
	if (!buf)
		return 2;
	if (change) {
		set_b = map_placed(npages, psz, node);
		if (!set_b)
			return 2;
		other = set_b;
		label = "A";
	}
	if (!strcmp(argv[1], "walk"))
		return walk(buf, npages, psz, atoi(argv[4]));
	printf("ready\n");
	fflush(stdout);

	flush_every = flush_ms ? atof(flush_ms) / 1000 : 0;
	start = now();
	cur = buf;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (!hot) {
			pause();
			continue;
		}
		if (change && cur == buf && now() - start >= secs) {
			/* The hot set changes: B is touched from now on. */
			cur = set_b;
			other = buf;
			label = "B";
		}
		touch(cur, npages, psz);
		/*
		 * Flush this range's TLB entries.  A real CPU's TLB holds a
		 * small part of the set, so touching it sets the accessed
		 * bits that DAMON clears; QEMU TCG's software TLB holds all of
		 * it and would never set them again.  Not with NUMA balancing
		 * (TIER_WORKLOAD_NO_TLB_FLUSH set): its hinting faults flush
		 * anyway, and mprotect() would undo their PROT_NONE marks.
		 */
		if (flush_tlb && now() - flushed >= flush_every) {
			if (mprotect(cur, npages * psz, PROT_READ) ||
			    mprotect(cur, npages * psz, PROT_READ | PROT_WRITE))
				return 2;
			flushed = now();
		}
		if (now() - last >= 1.0) {
			last = now();
			report(cur, npages, psz, last - start, label, other);
		}
		if (now() - start >= secs + secs_b)
			break;
	}
	bad = check(buf, npages, psz);
	if (set_b)
		bad += check(set_b, npages, psz);
	printf("%s: %lu of %lu pages corrupt\n", bad ? "FAIL" : "intact", bad,
	       change ? 2 * npages : npages);
	return bad ? 1 : 0;
}

struct thread_args {
	int argc;
	char **argv;
	int ret;
};

/* Bind the calling thread alone to NODE, then run the workload. */
static void *bound_thread(void *p)
{
	struct thread_args *a = p;
	unsigned long mask = 1UL << atoi(a->argv[3]);

	if (set_mempolicy(MPOL_BIND, &mask, MAX_NODES + 1))
		a->ret = 2;
	else
		a->ret = run(a->argc, a->argv);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *policy = getenv("TIER_WORKLOAD_POLICY");
	struct thread_args a = { argc, argv, 2 };
	pthread_t t;

	if (!policy || argc < 4)
		return run(argc, argv);
	if (!strcmp(policy, "task-bind")) {
		bound_thread(&a);
		return a.ret;
	}
	if (strcmp(policy, "thread-bind"))
		return run(argc, argv);
	if (pthread_create(&t, NULL, bound_thread, &a) || pthread_join(t, NULL))
		return 2;
	return a.ret;
}
