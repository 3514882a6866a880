// SPDX-License-Identifier: GPL-2.0
/*
 * Tier-weighted MPOL_INTERLEAVE: vm.numa_tier_interleave and
 * memory_tierN/interleave_weight, checked by where pages really land
 * (move_pages(2) with a NULL node list reports each page's node).
 *
 * Needs at least two memory tiers (the 2tier or 3tier VM); skips otherwise.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest_harness.h"

#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6	/* uapi value; older numaif.h lacks it */
#endif

#define SYSCTL		"/proc/sys/vm/numa_tier_interleave"
#define TIERS		"/sys/devices/virtual/memory_tiering"
#define MAX_TIERS	8
#define MAX_NODES	8

static long page_size;

struct tier {
	int id;
	unsigned long nodes;	/* bitmask */
};

/* Memory tiers sorted by id (fastest first). */
static int read_tiers(struct tier *t)
{
	struct dirent *de;
	int n = 0, i, j;
	DIR *d = opendir(TIERS);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < MAX_TIERS) {
		char path[320], buf[64], *p;
		FILE *f;

		if (strncmp(de->d_name, "memory_tier", 11))
			continue;
		t[n].id = atoi(de->d_name + 11);
		snprintf(path, sizeof(path), TIERS "/%s/nodelist", de->d_name);
		f = fopen(path, "r");
		if (!f || !fgets(buf, sizeof(buf), f)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		t[n].nodes = 0;
		for (p = buf; *p && *p != '\n';) {
			long lo = strtol(p, &p, 10), hi = lo;

			if (*p == '-')
				hi = strtol(p + 1, &p, 10);
			for (; lo <= hi; lo++)
				t[n].nodes |= 1UL << lo;
			if (*p == ',')
				p++;
		}
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (t[j].id < t[i].id) {
				struct tier tmp = t[i];

				t[i] = t[j];
				t[j] = tmp;
			}
	return n;
}

/* write(2) @val to @path in one call; returns 0 or errno. */
static int write_file(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, val, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int write_str(const char *path, const char *val)
{
	return write_file(path, val, strlen(val));
}

static void read_str(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

static char *tier_file(int id)
{
	static char path[128];

	snprintf(path, sizeof(path), TIERS "/memory_tier%d/interleave_weight", id);
	return path;
}

static int tier_weight(int id)
{
	char buf[32];

	read_str(tier_file(id), buf, sizeof(buf));
	return atoi(buf);
}

static int set_tier_weight(int id, int w)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", w);
	return write_str(tier_file(id), buf);
}

/* Fault @npages anonymous pages under the current policy; count per node. */
static int fault_and_count(unsigned long npages, int *count, int mbind_mode,
			   unsigned long mask)
{
	char *buf = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **pages;
	int *status, ret = 0;
	unsigned long i;

	if (buf == MAP_FAILED)
		return -1;
	madvise(buf, npages * page_size, MADV_NOHUGEPAGE);
	if (mbind_mode >= 0 &&
	    mbind(buf, npages * page_size, mbind_mode, &mask, MAX_NODES + 1, 0))
		ret = -1;
	pages = calloc(npages, sizeof(*pages));
	status = calloc(npages, sizeof(*status));
	for (i = 0; i < npages; i++) {
		buf[i * page_size] = (char)i;
		pages[i] = buf + i * page_size;
	}
	memset(count, 0, sizeof(int) * MAX_NODES);
	if (!ret && move_pages(0, npages, pages, NULL, status, 0))
		ret = -1;
	for (i = 0; !ret && i < npages; i++) {
		if (status[i] < 0 || status[i] >= MAX_NODES) {
			ret = -1;
			break;
		}
		count[status[i]]++;
	}
	free(pages);
	free(status);
	munmap(buf, npages * page_size);
	return ret;
}

static unsigned long all_nodes_mask(void)
{
	unsigned long mask = 0;
	int n;

	for (n = 0; n <= numa_max_node() && n < MAX_NODES; n++)
		if (numa_node_size(n, NULL) > 0)
			mask |= 1UL << n;
	return mask;
}

/* Expected count of @node for @npages under the current tier weights. */
static int expected_count(struct tier *t, int ntiers, unsigned long mask,
			  int node, unsigned long npages)
{
	int w[MAX_NODES] = { 0 }, i, n, total = 0;

	for (i = 0; i < ntiers; i++)
		for (n = 0; n < MAX_NODES; n++)
			if (t[i].nodes & (1UL << n))
				w[n] = tier_weight(t[i].id);
	for (n = 0; n < MAX_NODES; n++)
		if (mask & (1UL << n))
			total += w[n];
	return npages * w[node] / total;
}

FIXTURE(tiers) {
	struct tier t[MAX_TIERS];
	int ntiers;
	char saved_sysctl[64];
	int saved_weight[MAX_TIERS];
};

FIXTURE_SETUP(tiers)
{
	int i;

	page_size = sysconf(_SC_PAGESIZE);
	/* The machines make check boots have both: missing is a failure. */
	ASSERT_EQ(0, access(SYSCTL, F_OK)) TH_LOG("kernel has no " SYSCTL);
	self->ntiers = read_tiers(self->t);
	ASSERT_LE(2, self->ntiers)
		TH_LOG("needs two memory tiers, found %d", self->ntiers);
	read_str(SYSCTL, self->saved_sysctl, sizeof(self->saved_sysctl));
	for (i = 0; i < self->ntiers; i++)
		self->saved_weight[i] = tier_weight(self->t[i].id);
	write_str("/sys/kernel/mm/transparent_hugepage/enabled", "never");
}

FIXTURE_TEARDOWN(tiers)
{
	int i;

	if (self->ntiers < 2)
		return;
	for (i = 0; i < self->ntiers; i++)
		set_tier_weight(self->t[i].id, self->saved_weight[i]);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
}

/* Boot default: "1 1" and weight 1 everywhere. */
TEST_F(tiers, defaults)
{
	char buf[64];
	int i;

	read_str(SYSCTL, buf, sizeof(buf));
	EXPECT_STREQ("1 1\n", buf);
	for (i = 0; i < self->ntiers; i++)
		EXPECT_EQ(1, tier_weight(self->t[i].id));
}

TEST_F(tiers, sysctl_sets_tiers)
{
	char buf[64];
	int i;

	ASSERT_EQ(0, write_str(SYSCTL, "5 1\n"));
	read_str(SYSCTL, buf, sizeof(buf));
	EXPECT_STREQ("5 1\n", buf);
	EXPECT_EQ(5, tier_weight(self->t[0].id));
	for (i = 1; i < self->ntiers; i++)
		EXPECT_EQ(1, tier_weight(self->t[i].id));

	ASSERT_EQ(0, write_str(SYSCTL, "100 100"));
	read_str(SYSCTL, buf, sizeof(buf));
	EXPECT_STREQ("100 100\n", buf);

	/* Per-tier writes show through the two-tier view. */
	ASSERT_EQ(0, set_tier_weight(self->t[0].id, 7));
	ASSERT_EQ(0, set_tier_weight(self->t[1].id, 3));
	read_str(SYSCTL, buf, sizeof(buf));
	EXPECT_STREQ("7 3\n", buf);
}

TEST_F(tiers, sysctl_rejects_malformed)
{
	static const char * const bad[] = {
		"\n", "5", "5 1 1", "0 1", "1 0", "101 1", "1 101", "-1 1",
		"a b", "5 x", "5,1", "5 1x", "0x5 1", "4294967297 1",
		"99999999999999999999 1", "1.5 1", "5 1\n3",
		"5                                                       1",
	};
	char before[64], after[64];
	int i, j, w[MAX_TIERS];

	ASSERT_EQ(0, write_str(SYSCTL, "3 2"));
	read_str(SYSCTL, before, sizeof(before));
	for (j = 0; j < self->ntiers; j++)
		w[j] = tier_weight(self->t[j].id);
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, write_str(SYSCTL, bad[i]))
			TH_LOG("input \"%s\"", bad[i]);
		read_str(SYSCTL, after, sizeof(after));
		EXPECT_STREQ(before, after);
		for (j = 0; j < self->ntiers; j++)
			EXPECT_EQ(w[j], tier_weight(self->t[j].id));
	}
}

TEST_F(tiers, sysfs_weight_validation)
{
	static const char * const bad[] = {
		"0", "101", "-1", "abc", "\n", "1.5", "4294967297", "7 7", "0x7",
	};
	int i, id = self->t[1].id;

	ASSERT_EQ(0, set_tier_weight(id, 9));
	EXPECT_EQ(9, tier_weight(id));
	ASSERT_EQ(0, write_str(tier_file(id), "100\n"));
	EXPECT_EQ(100, tier_weight(id));
	ASSERT_EQ(0, set_tier_weight(id, 4));
	for (i = 0; i < (int)ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, write_str(tier_file(id), bad[i]))
			TH_LOG("input \"%s\"", bad[i]);
		EXPECT_EQ(4, tier_weight(id));
	}
}

/* set_mempolicy(MPOL_INTERLEAVE) over all nodes: exact per-tier ratio. */
TEST_F(tiers, set_mempolicy_placement)
{
	unsigned long mask = all_nodes_mask();
	unsigned long npages;
	int count[MAX_NODES], n, i;

	if (self->ntiers == 2) {
		ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	} else {
		/* 4:2:1 across three tiers. */
		for (i = 0; i < self->ntiers; i++)
			ASSERT_EQ(0, set_tier_weight(self->t[i].id, 4 >> i ?: 1));
	}
	npages = 6 * 7 * 100;	/* a multiple of 5+1 and of 4+2+1 */
	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &mask, MAX_NODES + 1));
	ASSERT_EQ(0, fault_and_count(npages, count, -1, 0));
	for (n = 0; n < MAX_NODES; n++) {
		if (!(mask & (1UL << n)))
			continue;
		EXPECT_EQ(expected_count(self->t, self->ntiers, mask, n, npages), count[n])
			TH_LOG("node %d", n);
	}
	if (self->ntiers == 2) {
		EXPECT_EQ(3500, count[0]);
		EXPECT_EQ(700, count[1]);
	} else {
		EXPECT_EQ(2400, count[0]);
		EXPECT_EQ(1200, count[1]);
		EXPECT_EQ(600, count[2]);
	}
}

/* mbind(MPOL_INTERLEAVE) on one VMA, no task policy. */
TEST_F(tiers, mbind_placement)
{
	unsigned long mask = 0x3;
	int count[MAX_NODES];

	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	ASSERT_EQ(0, fault_and_count(600, count, MPOL_INTERLEAVE, mask));
	EXPECT_EQ(500, count[0]);
	EXPECT_EQ(100, count[1]);
	/* A mask with one node of each tier below the top: their own ratio. */
	if (self->ntiers >= 3) {
		ASSERT_EQ(0, set_tier_weight(self->t[1].id, 3));
		ASSERT_EQ(0, set_tier_weight(self->t[2].id, 1));
		ASSERT_EQ(0, fault_and_count(600, count, MPOL_INTERLEAVE, 0x6));
		EXPECT_EQ(450, count[1]);
		EXPECT_EQ(150, count[2]);
	}
}

/* Default "1 1": the classic even split, in a parent and a forked child. */
TEST_F(tiers, default_even_split_and_fork)
{
	unsigned long mask = 0x3;
	int count[MAX_NODES], status;
	pid_t pid;

	ASSERT_EQ(0, write_str(SYSCTL, "1 1"));
	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &mask, MAX_NODES + 1));
	ASSERT_EQ(0, fault_and_count(6000, count, -1, 0));
	EXPECT_EQ(3000, count[0]);
	EXPECT_EQ(3000, count[1]);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (fault_and_count(6000, count, -1, 0))
			_exit(2);
		_exit(count[0] == 3000 && count[1] == 3000 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A forked child inherits the policy and honours weights set later. */
TEST_F(tiers, fork_inherits_weighted_policy)
{
	unsigned long mask = 0x3;
	int count[MAX_NODES], status;
	pid_t pid;

	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &mask, MAX_NODES + 1));
	ASSERT_EQ(0, fault_and_count(7, count, -1, 0));	/* odd state */
	ASSERT_EQ(0, write_str(SYSCTL, "2 1"));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		if (fault_and_count(3000, count, -1, 0))
			_exit(2);
		_exit(count[0] == 2000 && count[1] == 1000 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* SysV shm with an interleave mbind: shared policy, index by offset. */
TEST_F(tiers, shmem_placement)
{
	unsigned long mask = 0x3, npages = 600, i;
	int shmid, status[600], count[MAX_NODES] = { 0 };
	void *pages[600];
	char *buf;

	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	shmid = shmget(IPC_PRIVATE, npages * page_size, IPC_CREAT | 0600);
	ASSERT_GE(shmid, 0);
	buf = shmat(shmid, NULL, 0);
	shmctl(shmid, IPC_RMID, NULL);
	ASSERT_NE((void *)-1, buf);
	ASSERT_EQ(0, mbind(buf, npages * page_size, MPOL_INTERLEAVE, &mask,
			   MAX_NODES + 1, 0));
	for (i = 0; i < npages; i++) {
		buf[i * page_size] = 1;
		pages[i] = buf + i * page_size;
	}
	ASSERT_EQ(0, move_pages(0, npages, pages, NULL, status, 0));
	for (i = 0; i < npages; i++) {
		ASSERT_GE(status[i], 0);
		count[status[i]]++;
	}
	EXPECT_EQ(500, count[0]);
	EXPECT_EQ(100, count[1]);
	shmdt(buf);
}

/*
 * Page cache of a tmpfs file written under the task's interleave policy:
 * shmem interleaves by file offset, so 1 1 gives an even split and 5 1
 * exactly 5:1 over a multiple of 6 pages.
 */
static int tmpfs_file_counts(unsigned long npages, int *count)
{
	char path[] = "/tmp/tier_interleave.XXXXXX", *page, *map;
	unsigned long i, mask = 0x3;
	void **pages;
	int fd, *status, ret = -1;

	page = calloc(1, page_size);
	pages = calloc(npages, sizeof(*pages));
	status = calloc(npages, sizeof(*status));
	fd = mkstemp(path);
	if (fd < 0 || !page || !pages || !status)
		goto out;
	unlink(path);
	if (set_mempolicy(MPOL_INTERLEAVE, &mask, MAX_NODES + 1))
		goto out;
	for (i = 0; i < npages; i++) {
		page[0] = (char)i;
		if (write(fd, page, page_size) != page_size)
			goto out_policy;
	}
	map = mmap(NULL, npages * page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto out_policy;
	for (i = 0; i < npages; i++) {
		if (map[i * page_size] != (char)i)
			goto out_unmap;
		pages[i] = map + i * page_size;
	}
	memset(count, 0, sizeof(int) * MAX_NODES);
	if (move_pages(0, npages, pages, NULL, status, 0))
		goto out_unmap;
	for (i = 0; i < npages; i++) {
		if (status[i] < 0 || status[i] >= MAX_NODES)
			goto out_unmap;
		count[status[i]]++;
	}
	ret = 0;
out_unmap:
	munmap(map, npages * page_size);
out_policy:
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
out:
	if (fd >= 0)
		close(fd);
	free(page);
	free(pages);
	free(status);
	return ret;
}

TEST_F(tiers, tmpfs_file_placement)
{
	int count[MAX_NODES];

	ASSERT_EQ(0, write_str(SYSCTL, "1 1"));
	ASSERT_EQ(0, tmpfs_file_counts(6000, count));
	EXPECT_EQ(3000, count[0]);
	EXPECT_EQ(3000, count[1]);
	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	ASSERT_EQ(0, tmpfs_file_counts(6000, count));
	EXPECT_EQ(5000, count[0]);
	EXPECT_EQ(1000, count[1]);
}

/* interleave_hit in /sys/devices/system/node/nodeN/numastat */
static long interleave_hit(int node)
{
	char path[80], key[32];
	long val, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", key, &val) == 2)
		if (!strcmp(key, "interleave_hit"))
			ret = val;
	fclose(f);
	return ret;
}

/* Tier-weighted allocations count as interleave hits on their node. */
TEST_F(tiers, interleave_hit_counted)
{
	long before0 = interleave_hit(0), before1 = interleave_hit(1), d0, d1;
	int count[MAX_NODES];

	ASSERT_GE(before0, 0);
	ASSERT_GE(before1, 0);
	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &(unsigned long){ 0x3 },
				   MAX_NODES + 1));
	ASSERT_EQ(0, fault_and_count(6000, count, -1, 0));
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	EXPECT_EQ(5000, count[0]);
	EXPECT_EQ(1000, count[1]);
	d0 = interleave_hit(0) - before0;
	d1 = interleave_hit(1) - before1;
	/* Every page counts; page tables and the like may add a few. */
	EXPECT_GE(d0, 5000);
	EXPECT_GE(d1, 1000);
	EXPECT_LE(d0 + d1, 6000 + 200);
}

static int set_node_hugepages(int node, int nr)
{
	char path[128], buf[16];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		 node);
	snprintf(buf, sizeof(buf), "%d", nr);
	return write_str(path, buf);
}

/* hugetlb: 12 huge pages at 5:1 -> 10 on node 0, 2 on node 1. */
TEST_F(tiers, hugetlb_placement)
{
	unsigned long mask = 0x3, hpage = 2UL << 20, i;
	int status[12], count[MAX_NODES] = { 0 };
	void *pages[12];
	char *buf;

	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	ASSERT_EQ(0, set_node_hugepages(0, 12) || set_node_hugepages(1, 12))
		TH_LOG("cannot reserve huge pages");
	buf = mmap(NULL, 12 * hpage, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (buf == MAP_FAILED) {
		set_node_hugepages(0, 0);
		set_node_hugepages(1, 0);
	}
	ASSERT_NE(MAP_FAILED, buf) TH_LOG("no huge pages");
	ASSERT_EQ(0, mbind(buf, 12 * hpage, MPOL_INTERLEAVE, &mask, MAX_NODES + 1, 0));
	for (i = 0; i < 12; i++) {
		buf[i * hpage] = 1;
		pages[i] = buf + i * hpage;
	}
	ASSERT_EQ(0, move_pages(0, 12, pages, NULL, status, 0));
	for (i = 0; i < 12; i++) {
		ASSERT_GE(status[i], 0);
		count[status[i]]++;
	}
	munmap(buf, 12 * hpage);
	set_node_hugepages(0, 0);
	set_node_hugepages(1, 0);
	EXPECT_EQ(10, count[0]);
	EXPECT_EQ(2, count[1]);
}

/* numactl --interleave=all, the administrator's path: "5 1". */
TEST_F(tiers, numactl_interleave_all)
{
	unsigned long mask = all_nodes_mask();
	int c[3] = { 0 }, n, got;
	char cmd[256], self_exe[200];
	FILE *p;
	ssize_t len;

	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	ASSERT_GT(len, 0);
	self_exe[len] = '\0';
	/* 4200 pages: a multiple of 5+1 and of 5+1+1. */
	snprintf(cmd, sizeof(cmd), "numactl --interleave=all %s --fault 4200", self_exe);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	got = fscanf(p, "%d %d %d", &c[0], &c[1], &c[2]);
	pclose(p);
	ASSERT_EQ(3, got);
	for (n = 0; n < 3; n++) {
		if (!(mask & (1UL << n)))
			continue;
		EXPECT_EQ(expected_count(self->t, self->ntiers, mask, n, 4200), c[n])
			TH_LOG("node %d", n);
	}
	EXPECT_EQ(self->ntiers == 2 ? 3500 : 3000, c[0]);
}

/* Per-node weights of @mask under the current tier weights. */
static void node_weights(struct tier *t, int ntiers, int *w)
{
	int i, n;

	for (n = 0; n < MAX_NODES; n++)
		w[n] = 1;
	for (i = 0; i < ntiers; i++)
		for (n = 0; n < MAX_NODES; n++)
			if (t[i].nodes & (1UL << n))
				w[n] = tier_weight(t[i].id);
}

/*
 * The documented sequence, written out independently of the kernel: the
 * nodes of @mask in order, each for its weight's worth of consecutive
 * indexes, wrapping after the sum of the weights.
 */
static int seq_node(unsigned long mask, const int *w, unsigned long ilx)
{
	unsigned long total = 0, target;
	int n;

	for (n = 0; n < MAX_NODES; n++)
		if (mask & (1UL << n))
			total += w[n];
	target = ilx % total;
	for (n = 0; n < MAX_NODES; n++) {
		if (!(mask & (1UL << n)))
			continue;
		if (target < (unsigned long)w[n])
			return n;
		target -= w[n];
	}
	return -1;
}

/* 5:1 on two tiers, 4:2:1 on three. */
static void set_test_weights(struct __test_metadata *_metadata,
			     struct tier *t, int ntiers)
{
	int i;

	for (i = 0; i < ntiers; i++)
		ASSERT_EQ(0, set_tier_weight(t[i].id, ntiers == 2 ? (i ? 1 : 5) :
					     (4 >> i ?: 1)));
}

/*
 * get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR) on every page of an interleaved
 * mapping: the offset-based sequence, page by page, for the tier weights
 * and for the default weights (the base kernel's round robin), and the
 * same node as move_pages(2).  An anonymous mapping's interleave index is
 * its virtual page number.
 */
TEST_F(tiers, get_mempolicy_addr_sequence)
{
	unsigned long mask = all_nodes_mask(), npages = 126, i;
	int w[MAX_NODES], node, status, round, bad;
	char *buf;
	void *page;

	for (round = 0; round < 2; round++) {
		if (round)
			set_test_weights(_metadata, self->t, self->ntiers);
		else
			ASSERT_EQ(0, write_str(SYSCTL, "1 1"));
		node_weights(self->t, self->ntiers, w);
		buf = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, buf);
		madvise(buf, npages * page_size, MADV_NOHUGEPAGE);
		ASSERT_EQ(0, mbind(buf, npages * page_size, MPOL_INTERLEAVE,
				   &mask, MAX_NODES + 1, 0));
		for (i = 0; i < npages; i++)
			buf[i * page_size] = 1;
		bad = 0;
		for (i = 0; i < npages; i++) {
			unsigned long ilx = (unsigned long)buf / page_size + i;

			page = buf + i * page_size;
			ASSERT_EQ(0, get_mempolicy(&node, NULL, 0, page,
						   MPOL_F_NODE | MPOL_F_ADDR));
			ASSERT_EQ(0, move_pages(0, 1, &page, NULL, &status, 0));
			if (node != seq_node(mask, w, ilx) || node != status) {
				TH_LOG("round %d page %lu: node %d, move_pages %d, want %d",
				       round, i, node, status, seq_node(mask, w, ilx));
				bad++;
			}
		}
		EXPECT_EQ(0, bad);
		munmap(buf, npages * page_size);
	}
}

/*
 * The process-based path: page cache of a ramfs file is allocated without
 * an interleave index, so it walks the task's interleave state.  Before
 * each one-page write, get_mempolicy(MPOL_F_NODE) says where the next
 * allocation goes; each page must be there (move_pages(2) on a shared
 * mapping of the file), and the whole sequence must be the documented one
 * from a fresh set_mempolicy().  The file is written and truncated once
 * first so that its page cache index nodes come from the slab, not from
 * fresh pages that would take turns of the sequence.
 */
TEST_F(tiers, get_mempolicy_process_sequence)
{
	unsigned long mask = all_nodes_mask(), npages = 63, i;
	int w[MAX_NODES], peek[64], status[64], round, fd, bad;
	char dir[] = "/tmp/tier_il_XXXXXX", file[64], *data, *map;
	void *pages[64];

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, mount("none", dir, "ramfs", 0, NULL));
	snprintf(file, sizeof(file), "%s/f", dir);
	data = calloc(1, page_size);
	ASSERT_NE(NULL, data);
	for (round = 0; round < 2; round++) {
		fd = open(file, O_CREAT | O_RDWR | O_TRUNC, 0600);
		ASSERT_LE(0, fd);
		for (i = 0; i < npages; i++)
			ASSERT_EQ(page_size, pwrite(fd, data, page_size, i * page_size));
		ASSERT_EQ(0, ftruncate(fd, 0));
		if (round)
			set_test_weights(_metadata, self->t, self->ntiers);
		else
			ASSERT_EQ(0, write_str(SYSCTL, "1 1"));
		node_weights(self->t, self->ntiers, w);
		ASSERT_EQ(0, set_mempolicy(MPOL_INTERLEAVE, &mask, MAX_NODES + 1));
		for (i = 0; i < npages; i++) {
			ASSERT_EQ(0, get_mempolicy(&peek[i], NULL, 0, NULL, MPOL_F_NODE));
			data[0] = (char)i;
			ASSERT_EQ(page_size, pwrite(fd, data, page_size, i * page_size));
		}
		ASSERT_EQ(0, set_mempolicy(MPOL_DEFAULT, NULL, 0));
		map = mmap(NULL, npages * page_size, PROT_READ, MAP_SHARED, fd, 0);
		ASSERT_NE(MAP_FAILED, map);
		for (i = 0; i < npages; i++) {
			pages[i] = map + i * page_size;
			ASSERT_EQ((char)i, map[i * page_size]);
		}
		ASSERT_EQ(0, move_pages(0, npages, pages, NULL, status, 0));
		bad = 0;
		for (i = 0; i < npages; i++) {
			if (peek[i] != status[i] || peek[i] != seq_node(mask, w, i)) {
				TH_LOG("round %d page %lu: node %d, move_pages %d, want %d",
				       round, i, peek[i], status[i], seq_node(mask, w, i));
				bad++;
			}
		}
		EXPECT_EQ(0, bad);
		munmap(map, npages * page_size);
		close(fd);
	}
	unlink(file);
	free(data);
	EXPECT_EQ(0, umount(dir));
	rmdir(dir);
}

/*
 * The sysctl's LOW goes to every tier below the top, also on three tiers;
 * reading shows the top tier and the one right below it.
 */
TEST_F(tiers, sysctl_low_sets_every_lower_tier)
{
	unsigned long mask = all_nodes_mask();
	int count[MAX_NODES], w[MAX_NODES], n, i;
	unsigned long npages = 630;	/* a multiple of 5+2 and of 5+2+2 */
	char buf[64];

	ASSERT_EQ(0, write_str(SYSCTL, "5 2"));
	EXPECT_EQ(5, tier_weight(self->t[0].id));
	for (i = 1; i < self->ntiers; i++)
		EXPECT_EQ(2, tier_weight(self->t[i].id)) TH_LOG("tier %d", i);
	read_str(SYSCTL, buf, sizeof(buf));
	EXPECT_STREQ("5 2\n", buf);
	node_weights(self->t, self->ntiers, w);
	ASSERT_EQ(0, fault_and_count(npages, count, MPOL_INTERLEAVE, mask));
	for (n = 0; n < MAX_NODES; n++)
		if (mask & (1UL << n))
			EXPECT_EQ(expected_count(self->t, self->ntiers, mask, n, npages),
				  count[n]) TH_LOG("node %d", n);
	EXPECT_EQ(self->ntiers == 2 ? 450 : 350, count[0]);
	/* A tier below the second one does not show through the sysctl. */
	if (self->ntiers >= 3) {
		ASSERT_EQ(0, set_tier_weight(self->t[2].id, 9));
		read_str(SYSCTL, buf, sizeof(buf));
		EXPECT_STREQ("5 2\n", buf);
	}
}

/* MPOL_WEIGHTED_INTERLEAVE keeps its own per-node weights. */
TEST_F(tiers, weighted_interleave_unchanged)
{
	const char *wi = "/sys/kernel/mm/mempolicy/weighted_interleave";
	const char *wi_auto = "/sys/kernel/mm/mempolicy/weighted_interleave/auto";
	char p0[128], p1[128];
	unsigned long mask = 0x3;
	int count[MAX_NODES];

	snprintf(p0, sizeof(p0), "%s/node0", wi);
	snprintf(p1, sizeof(p1), "%s/node1", wi);
	ASSERT_EQ(0, write_str(p0, "5"));
	ASSERT_EQ(0, write_str(p1, "1"));
	ASSERT_EQ(0, write_str(SYSCTL, "1 3"));	/* must not matter */
	ASSERT_EQ(0, fault_and_count(600, count, MPOL_WEIGHTED_INTERLEAVE, mask));
	EXPECT_EQ(500, count[0]);
	EXPECT_EQ(100, count[1]);
	write_str(p0, "1");
	write_str(p1, "1");
	/* Back to the boot default: weights from the nodes' bandwidth. */
	write_str(wi_auto, "true");
}

struct stress {
	int stop;		/* __atomic accesses */
	int failures;
	unsigned long mask;
	int tier_ids[MAX_TIERS];
	int ntiers;
};

static void *stress_faulter(void *arg)
{
	struct stress *s = arg;
	unsigned long npages = 240, i;
	char *buf;

	if (set_mempolicy(MPOL_INTERLEAVE, &s->mask, MAX_NODES + 1))
		__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		buf = mmap(NULL, npages * page_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
			break;
		}
		for (i = 0; i < npages; i++)
			memset(buf + i * page_size, (int)(i & 0xff), 64);
		for (i = 0; i < npages; i++)
			if (buf[i * page_size + 63] != (char)(i & 0xff))
				__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
		munmap(buf, npages * page_size);
	}
	return NULL;
}

static void *stress_writer(void *arg)
{
	struct stress *s = arg;
	unsigned int seed = 1;
	char buf[32];

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		snprintf(buf, sizeof(buf), "%d %d", rand_r(&seed) % 100 + 1,
			 rand_r(&seed) % 100 + 1);
		if (write_str(SYSCTL, buf))
			__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
		if (set_tier_weight(s->tier_ids[rand_r(&seed) % s->ntiers],
				    rand_r(&seed) % 100 + 1))
			__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
		/* Malformed input in the mix must fail and change nothing. */
		if (write_str(SYSCTL, "0 0") != EINVAL)
			__atomic_add_fetch(&s->failures, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Two faulting threads against a third rewriting weights, for 30 s. */
TEST_F_TIMEOUT(tiers, stress_weight_updates, 120)
{
	struct stress s = { .mask = 0x3 };
	pthread_t th[3];
	int count[MAX_NODES], i;
	int secs = getenv("STRESS_SECONDS") ? atoi(getenv("STRESS_SECONDS")) : 30;

	s.ntiers = self->ntiers;
	for (i = 0; i < self->ntiers; i++)
		s.tier_ids[i] = self->t[i].id;
	ASSERT_EQ(0, pthread_create(&th[0], NULL, stress_faulter, &s));
	ASSERT_EQ(0, pthread_create(&th[1], NULL, stress_faulter, &s));
	ASSERT_EQ(0, pthread_create(&th[2], NULL, stress_writer, &s));
	sleep(secs);
	__atomic_store_n(&s.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(0, s.failures);

	/* Placement is exact again once the weights are stable. */
	ASSERT_EQ(0, write_str(SYSCTL, "5 1"));
	for (i = 2; i < self->ntiers; i++)
		ASSERT_EQ(0, set_tier_weight(self->t[i].id, 1));
	ASSERT_EQ(0, fault_and_count(600, count, MPOL_INTERLEAVE, 0x3));
	EXPECT_EQ(500, count[0]);
	EXPECT_EQ(100, count[1]);
}

int main(int argc, char **argv)
{
	/* Helper for the numactl test: fault N pages, print counts of nodes 0-2. */
	if (argc == 3 && !strcmp(argv[1], "--fault")) {
		int count[MAX_NODES];

		page_size = sysconf(_SC_PAGESIZE);
		if (fault_and_count(strtoul(argv[2], NULL, 0), count, -1, 0))
			return 1;
		printf("%d %d %d\n", count[0], count[1], count[2]);
		return 0;
	}
	return test_harness_run(argc, argv);
}
