/*
 * verbs_check: the VM side of the Ferroce RoCEv2 interop test (libibverbs only, IPv4 RoCEv2,
 * RC or UC). Every line the host reads starts with "FERROCE-VM ".
 *
 *   --mode receive-writes  the peer sends COUNT RDMA WRITE WITH IMMEDIATE of SIZE bytes into our
 *                          buffer: message i lands at va + i*SIZE, carries immediate 0x1000 + i
 *                          and byte j of it is (i*7 + j) & 0xff. With --slots S the buffer is a
 *                          ring of S slots (message i in slot i mod S, checked as it completes);
 *                          --imm-base N: immediates N + i (a stream's sequence numbers: 0).
 *   --mode send-writes     we send the same messages to --peer-va/--peer-rkey, after reading a
 *                          "GO" line on stdin.
 *   --mode receive-sends   the peer sends COUNT SEND WITH IMMEDIATE of SIZE bytes: message i
 *                          lands in receive buffer i (va + i*SIZE), same immediates and bytes.
 *   --mode send-sends      we send the same SENDs, after reading "GO".
 *   --mode receive-reads   the peer RDMA READs COUNT messages of SIZE bytes from our buffer
 *                          (RC): message i at va + i*SIZE, the same bytes; we wait for "GO"
 *                          (the peer has read them all).
 *   --mode send-reads      we RDMA READ the same messages from --peer-va/--peer-rkey into our
 *                          buffer, after reading "GO", and check their bytes.
 *   --mode ping            no RDMA: COUNT UDP datagrams of SIZE bytes to the peer's echo port,
 *                          each must come back unchanged.
 *
 * The QP line (both RDMA modes) gives the host what it needs to program its side:
 *   FERROCE-VM QP qpn=<n> psn=<n> rkey=0x<hex> va=0x<hex> gid_index=<n>
 * then one of
 *   FERROCE-VM PASS writes|sends|reads=<count> bytes=<total>
 *   FERROCE-VM FAIL <reason>
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define IMM_BASE 0x1000u

enum mode { MODE_NONE, MODE_RECEIVE_WRITES, MODE_SEND_WRITES, MODE_RECEIVE_SENDS, MODE_SEND_SENDS,
	    MODE_RECEIVE_READS, MODE_SEND_READS, MODE_PING };

struct options {
	enum mode mode;
	int sends;             /* the messages are SENDs (else RDMA WRITEs), both with immediate */
	int reads;             /* the messages are RDMA READs (no immediate) */
	const char *dev;       /* RDMA device, rxe0 */
	int ib_port;           /* its port, 1 */
	const char *ifname;    /* netdev whose IPv4 address selects the GID, eth0 */
	struct in_addr peer_ip;
	int have_peer_ip;
	uint32_t peer_qpn, peer_psn, psn;
	enum ibv_qp_type qp_type;
	enum ibv_mtu mtu;
	size_t size;
	unsigned count;
	uint32_t peer_rkey;
	uint64_t peer_va;
	unsigned slots;        /* receive-writes: slots of the ring (COUNT: no ring) */
	uint32_t imm_base;     /* the first message's immediate */
	int timeout_ms;
	int udp_port;          /* ping mode */
};

/* Everything the RDMA modes set up. */
struct rdma {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	int gid_index;
	union ibv_gid sgid, dgid;
};

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FERROCE-VM FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* Verbs calls that return an errno value (ibv_modify_qp, ibv_post_*, ...) */
static void check(int ret, const char *call)
{
	if (ret)
		fail("%s: %s", call, strerror(ret));
}

/* Verbs calls that return NULL and set errno (ibv_open_device, ibv_reg_mr, ...) */
static void *check_ptr(void *p, const char *call)
{
	if (!p)
		fail("%s: %s", call, strerror(errno ? errno : EINVAL));
	return p;
}

static uint8_t pattern(unsigned i, size_t j)
{
	return (uint8_t)((i * 7u + j) & 0xff);
}

/* IBV_MTU_256 is 1, IBV_MTU_512 is 2, ... */
static int mtu_bytes(enum ibv_mtu m)
{
	return 128 << m;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: verbs_check --mode receive-writes|send-writes|receive-sends|send-sends|\n"
		"                          receive-reads|send-reads|ping\n"
		"  --peer-ip A.B.C.D\n"
		"  [--peer-qpn N] [--peer-psn N] [--psn N] [--transport rc|uc] [--mtu 1024]\n"
		"  [--size BYTES] [--count N] [--timeout-ms 20000] [--imm-base 0x1000]\n"
		"  receive-writes: [--slots S] (a ring of S slots)\n"
		"  send-writes, send-reads: --peer-rkey 0xHEX --peer-va 0xHEX\n"
		"  [--dev rxe0] [--ib-port 1] [--ifname eth0] [--udp-port 7 (ping)]\n");
	exit(2);
}

static unsigned long long number(const char *s, const char *name, unsigned long long max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "verbs_check: bad %s: %s\n", name, s);
		usage();
	}
	return v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, 0, 'm' },
		{ "peer-ip", required_argument, 0, 'i' },
		{ "peer-qpn", required_argument, 0, 'q' },
		{ "peer-psn", required_argument, 0, 'P' },
		{ "psn", required_argument, 0, 'p' },
		{ "transport", required_argument, 0, 't' },
		{ "mtu", required_argument, 0, 'M' },
		{ "size", required_argument, 0, 's' },
		{ "count", required_argument, 0, 'c' },
		{ "peer-rkey", required_argument, 0, 'r' },
		{ "peer-va", required_argument, 0, 'v' },
		{ "timeout-ms", required_argument, 0, 'T' },
		{ "dev", required_argument, 0, 'd' },
		{ "ib-port", required_argument, 0, 'b' },
		{ "ifname", required_argument, 0, 'n' },
		{ "udp-port", required_argument, 0, 'u' },
		{ "slots", required_argument, 0, 'S' },
		{ "imm-base", required_argument, 0, 'I' },
		{ 0, 0, 0, 0 },
	};
	int have_rkey = 0, have_va = 0, have_qpn = 0, c;

	*o = (struct options){
		.dev = "rxe0", .ib_port = 1, .ifname = "eth0", .qp_type = IBV_QPT_RC,
		.mtu = IBV_MTU_1024, .size = 4096, .count = 1, .timeout_ms = 20000, .udp_port = 7,
		.imm_base = IMM_BASE,
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "receive-writes"))
				o->mode = MODE_RECEIVE_WRITES;
			else if (!strcmp(optarg, "send-writes"))
				o->mode = MODE_SEND_WRITES;
			else if (!strcmp(optarg, "receive-sends"))
				o->mode = MODE_RECEIVE_SENDS;
			else if (!strcmp(optarg, "send-sends"))
				o->mode = MODE_SEND_SENDS;
			else if (!strcmp(optarg, "receive-reads"))
				o->mode = MODE_RECEIVE_READS;
			else if (!strcmp(optarg, "send-reads"))
				o->mode = MODE_SEND_READS;
			else if (!strcmp(optarg, "ping"))
				o->mode = MODE_PING;
			else
				usage();
			break;
		case 'i':
			if (inet_pton(AF_INET, optarg, &o->peer_ip) != 1)
				usage();
			o->have_peer_ip = 1;
			break;
		case 'q': o->peer_qpn = number(optarg, "peer-qpn", 0xffffff); have_qpn = 1; break;
		case 'P': o->peer_psn = number(optarg, "peer-psn", 0xffffff); break;
		case 'p': o->psn = number(optarg, "psn", 0xffffff); break;
		case 't':
			if (!strcmp(optarg, "rc"))
				o->qp_type = IBV_QPT_RC;
			else if (!strcmp(optarg, "uc"))
				o->qp_type = IBV_QPT_UC;
			else
				usage();
			break;
		case 'M':
			switch (number(optarg, "mtu", 4096)) {
			case 256: o->mtu = IBV_MTU_256; break;
			case 512: o->mtu = IBV_MTU_512; break;
			case 1024: o->mtu = IBV_MTU_1024; break;
			case 2048: o->mtu = IBV_MTU_2048; break;
			case 4096: o->mtu = IBV_MTU_4096; break;
			default: usage();
			}
			break;
		case 's': o->size = number(optarg, "size", 1u << 30); break;
		case 'c': o->count = number(optarg, "count", 1u << 20); break;
		case 'r': o->peer_rkey = number(optarg, "peer-rkey", UINT32_MAX); have_rkey = 1; break;
		case 'v': o->peer_va = number(optarg, "peer-va", UINT64_MAX); have_va = 1; break;
		case 'T': o->timeout_ms = number(optarg, "timeout-ms", 3600000); break;
		case 'd': o->dev = optarg; break;
		case 'b': o->ib_port = number(optarg, "ib-port", 255); break;
		case 'n': o->ifname = optarg; break;
		case 'u': o->udp_port = number(optarg, "udp-port", 65535); break;
		case 'S': o->slots = number(optarg, "slots", 1u << 20); break;
		case 'I': o->imm_base = number(optarg, "imm-base", UINT32_MAX); break;
		default: usage();
		}
	}
	if (optind != argc || o->mode == MODE_NONE || !o->have_peer_ip || o->count == 0)
		usage();
	if (o->mode != MODE_PING && !have_qpn)
		usage();
	if ((o->mode == MODE_SEND_WRITES || o->mode == MODE_SEND_READS) && !(have_rkey && have_va))
		usage();
	if (o->slots == 0 || o->slots > o->count)
		o->slots = o->count;
	if (o->slots != o->count && o->mode != MODE_RECEIVE_WRITES) {
		fprintf(stderr, "verbs_check: --slots is for receive-writes\n");
		usage();
	}
	o->sends = o->mode == MODE_RECEIVE_SENDS || o->mode == MODE_SEND_SENDS;
	o->reads = o->mode == MODE_RECEIVE_READS || o->mode == MODE_SEND_READS;
	if (o->reads && o->qp_type != IBV_QPT_RC) {
		fprintf(stderr, "verbs_check: RDMA READ needs --transport rc\n");
		usage();
	}
}

/* IPv4 address of a network interface. */
static struct in_addr interface_ipv4(const char *ifname)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		fail("socket: %s", strerror(errno));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFADDR, &ifr) < 0)
		fail("SIOCGIFADDR %s: %s", ifname, strerror(errno));
	close(fd);
	return ((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr;
}

/* ::ffff:a.b.c.d, the GID RoCEv2 uses for an IPv4 address. */
static union ibv_gid ipv4_mapped_gid(struct in_addr a)
{
	union ibv_gid g = { 0 };

	g.raw[10] = 0xff;
	g.raw[11] = 0xff;
	memcpy(&g.raw[12], &a, 4);
	return g;
}

/* First line of a sysfs file, without the newline; -1 (errno set) if unreadable. */
static int read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok) {
		errno = EIO;
		return -1;
	}
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* GID table index holding `want` with type RoCE v2, from sysfs. */
static int find_roce_v2_gid(const char *dev, int port, const union ibv_gid *want)
{
	char path[256], line[128];
	union ibv_gid g;

	for (int n = 0;; n++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/%d", dev, port, n);
		if (read_line(path, line, sizeof(line)) < 0) {
			if (errno == ENOENT)
				return -1; /* past the end of the table */
			continue;
		}
		if (inet_pton(AF_INET6, line, g.raw) != 1 || memcmp(g.raw, want->raw, 16))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/types/%d",
			 dev, port, n);
		if (read_line(path, line, sizeof(line)) == 0 && !strcmp(line, "RoCE v2"))
			return n;
	}
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = check_ptr(ibv_get_device_list(NULL), "ibv_get_device_list");
	struct ibv_context *ctx = NULL;

	for (int i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = check_ptr(ibv_open_device(list[i]), "ibv_open_device");
	ibv_free_device_list(list);
	if (!ctx)
		fail("no RDMA device %s", name);
	return ctx;
}

/* Device, PD, MR over size*count bytes, CQ with a completion channel, QP moved to RTS. */
static void setup(const struct options *o, struct rdma *r)
{
	size_t total = o->size * o->count;
	struct ibv_device_attr dev_attr;
	struct ibv_port_attr port_attr;
	struct ibv_qp_attr attr;
	int mask, ret, rc = o->qp_type == IBV_QPT_RC;

	r->ctx = open_device(o->dev);
	check(ibv_query_device(r->ctx, &dev_attr), "ibv_query_device");
	check(ibv_query_port(r->ctx, o->ib_port, &port_attr), "ibv_query_port");
	if (port_attr.state != IBV_PORT_ACTIVE)
		fail("%s port %d is %s", o->dev, o->ib_port, ibv_port_state_str(port_attr.state));
	if (o->mtu > port_attr.active_mtu)
		fail("mtu %d exceeds the port's active_mtu %d (raise the netdev MTU)",
		     mtu_bytes(o->mtu), mtu_bytes(port_attr.active_mtu));
	if (o->count + 1 > (unsigned)dev_attr.max_qp_wr || o->count + 1 > (unsigned)dev_attr.max_cqe)
		fail("count %u exceeds the device's queue depth (%d WRs, %d CQEs)", o->count,
		     dev_attr.max_qp_wr, dev_attr.max_cqe);

	r->sgid = ipv4_mapped_gid(interface_ipv4(o->ifname));
	r->dgid = ipv4_mapped_gid(o->peer_ip);
	r->gid_index = find_roce_v2_gid(o->dev, o->ib_port, &r->sgid);
	if (r->gid_index < 0)
		fail("no RoCE v2 GID for the IPv4 address of %s on %s port %d", o->ifname, o->dev,
		     o->ib_port);

	r->pd = check_ptr(ibv_alloc_pd(r->ctx), "ibv_alloc_pd");
	/* Aligned to 1 MiB: a peer that cuts a WRITE into blocks aligned to the destination
	 * address (Ferroce's block size is 4 KiB to 1 MiB) then sends each of our messages as one
	 * message, so its completion's byte_len is SIZE. */
	void *buffer = NULL;
	errno = posix_memalign(&buffer, 1u << 20, total ? total : 1);
	r->buf = check_ptr(errno ? NULL : buffer, "posix_memalign");
	memset(r->buf, 0, total ? total : 1);
	r->mr = check_ptr(ibv_reg_mr(r->pd, r->buf, total ? total : 1,
				     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_REMOTE_READ),
			  "ibv_reg_mr");
	r->channel = check_ptr(ibv_create_comp_channel(r->ctx), "ibv_create_comp_channel");
	r->cq = check_ptr(ibv_create_cq(r->ctx, o->count + 1, NULL, r->channel, 0), "ibv_create_cq");

	struct ibv_qp_init_attr init = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.qp_type = o->qp_type,
		.cap = { .max_send_wr = o->count, .max_recv_wr = o->count,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	r->qp = check_ptr(ibv_create_qp(r->pd, &init), "ibv_create_qp");

	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = o->ib_port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	check(ibv_modify_qp(r->qp, &attr,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	      "ibv_modify_qp(INIT)");

	/* RTR: the kernel resolves the peer's MAC here (ARP), so the peer must answer ARP. */
	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = o->mtu,
		.dest_qp_num = o->peer_qpn,
		.rq_psn = o->peer_psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = r->dgid, .sgid_index = r->gid_index, .hop_limit = 64 },
			.port_num = o->ib_port,
		},
	};
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	if (rc)
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	ret = ibv_modify_qp(r->qp, &attr, mask);
	if (ret == ETIMEDOUT)
		fail("ibv_modify_qp(RTR): %s (no ARP reply from %s?)", strerror(ret),
		     inet_ntoa(o->peer_ip));
	check(ret, "ibv_modify_qp(RTR)");

	attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.sq_psn = o->psn,
		/* ACK timeout 4.096 us * 2^18 = 1.07 s, generous for a simulated peer. Retry counts
		 * of 6, not 7: rxe treats retry_cnt 7 as "retry forever". */
		.timeout = 18,
		.retry_cnt = 6,
		.rnr_retry = 6,
		.max_rd_atomic = 1,
	};
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc)
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	check(ibv_modify_qp(r->qp, &attr, mask), "ibv_modify_qp(RTS)");
}

static void print_qp_line(const struct options *o, const struct rdma *r)
{
	printf("FERROCE-VM QP qpn=%u psn=%u rkey=0x%x va=0x%llx gid_index=%d\n", r->qp->qp_num,
	       o->psn, r->mr->rkey, (unsigned long long)(uintptr_t)r->buf, r->gid_index);
	fflush(stdout);
}

/* Next completion, sleeping on the completion channel; 0 when the deadline passes first. */
static int next_completion(struct rdma *r, int64_t deadline, struct ibv_wc *wc)
{
	for (;;) {
		int n = ibv_poll_cq(r->cq, 1, wc);
		if (n < 0)
			fail("ibv_poll_cq: %s", strerror(-n));
		if (n == 1)
			return 1;
		/* Arm, then poll again: a completion may have arrived before arming. */
		check(ibv_req_notify_cq(r->cq, 0), "ibv_req_notify_cq");
		n = ibv_poll_cq(r->cq, 1, wc);
		if (n < 0)
			fail("ibv_poll_cq: %s", strerror(-n));
		if (n == 1)
			return 1;

		int64_t left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd pfd = { .fd = r->channel->fd, .events = POLLIN };
		n = poll(&pfd, 1, (int)left);
		if (n < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		if (n > 0) {
			struct ibv_cq *ev_cq;
			void *ev_ctx;
			if (ibv_get_cq_event(r->channel, &ev_cq, &ev_ctx))
				fail("ibv_get_cq_event: %s", strerror(errno));
			ibv_ack_cq_events(ev_cq, 1);
		}
	}
}

/* The host programs its side (or has finished), then sends GO. */
static void wait_for_go(void)
{
	char line[64];

	for (;;) {
		if (!fgets(line, sizeof(line), stdin))
			fail("stdin closed before GO");
		line[strcspn(line, "\r\n")] = 0;
		if (!strcmp(line, "GO"))
			return;
	}
}

/* Message i's bytes in slice i of the buffer. */
static void fill_pattern(const struct options *o, struct rdma *r)
{
	for (unsigned i = 0; i < o->count; i++)
		for (size_t j = 0; j < o->size; j++)
			r->buf[(size_t)i * o->size + j] = pattern(i, j);
}

/* receive-reads: the peer reads the messages from our buffer; it says GO when it has. */
static void expose_reads(const struct options *o, struct rdma *r)
{
	fill_pattern(o, r);
	print_qp_line(o, r);
	wait_for_go();
}

/* send-reads: after GO, the messages read from the peer into our buffer, one READ each. */
static void post_reads(const struct options *o, struct rdma *r)
{
	struct ibv_wc wc;
	int64_t deadline;

	print_qp_line(o, r);
	wait_for_go();
	for (unsigned i = 0; i < o->count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(r->buf + (size_t)i * o->size),
			.length = o->size,
			.lkey = r->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IBV_WR_RDMA_READ,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		wr.wr.rdma = (typeof(wr.wr.rdma)){
			.remote_addr = o->peer_va + (uint64_t)i * o->size, .rkey = o->peer_rkey };
		check(ibv_post_send(r->qp, &wr, &bad), "ibv_post_send");
	}
	deadline = now_ms() + o->timeout_ms;
	for (unsigned i = 0; i < o->count; i++) {
		if (!next_completion(r, deadline, &wc))
			fail("timeout after %d ms: %u of %u reads completed", o->timeout_ms, i, o->count);
		if (wc.status != IBV_WC_SUCCESS)
			fail("read %llu: completion status %s (vendor_err 0x%x)",
			     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.vendor_err);
		if (wc.opcode != IBV_WC_RDMA_READ || wc.wr_id != i)
			fail("completion %u: opcode %d wr_id %llu, expected RDMA_READ %u", i, wc.opcode,
			     (unsigned long long)wc.wr_id, i);
	}
	for (unsigned i = 0; i < o->count; i++) {
		uint8_t *slice = r->buf + (size_t)i * o->size;
		for (size_t j = 0; j < o->size; j++)
			if (slice[j] != pattern(i, j))
				fail("read %u: byte %zu is 0x%02x, expected 0x%02x", i, j, slice[j],
				     pattern(i, j));
	}
}

static void receive_messages(const struct options *o, struct rdma *r)
{
	const char *what = o->sends ? "send" : "write";
	enum ibv_wc_opcode opcode = o->sends ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM;
	struct ibv_wc wc;
	int64_t deadline;

	/* WRITE WITH IMMEDIATE consumes a receive WR (its data goes to the RETH's address); a SEND
	 * lands in the WR's buffer: slice i of ours. */
	for (unsigned i = 0; i < o->count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(r->buf + (size_t)i * o->size),
			.length = o->size,
			.lkey = r->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = o->sends }, *bad;
		check(ibv_post_recv(r->qp, &wr, &bad), "ibv_post_recv");
	}
	print_qp_line(o, r);

	deadline = now_ms() + o->timeout_ms;
	for (unsigned i = 0; i < o->count; i++) {
		/* a SEND lands in receive buffer i; a WRITE in slot i of the ring */
		uint8_t *slice = r->buf + (size_t)(o->sends ? i : i % o->slots) * o->size;

		if (!next_completion(r, deadline, &wc))
			fail("timeout after %d ms: %u of %u %ss received", o->timeout_ms, i, o->count,
			     what);
		if (wc.status != IBV_WC_SUCCESS)
			fail("%s %u: completion status %s (vendor_err 0x%x)", what, i,
			     ibv_wc_status_str(wc.status), wc.vendor_err);
		if (wc.opcode != opcode || !(wc.wc_flags & IBV_WC_WITH_IMM))
			fail("%s %u: opcode %d flags 0x%x, expected %s with an immediate", what, i,
			     wc.opcode, wc.wc_flags, o->sends ? "RECV" : "RECV_RDMA_WITH_IMM");
		if (wc.wr_id != i)
			fail("%s %u: completes receive %llu", what, i, (unsigned long long)wc.wr_id);
		if (be32toh(wc.imm_data) != o->imm_base + i)
			fail("%s %u: immediate 0x%x, expected 0x%x", what, i, be32toh(wc.imm_data),
			     o->imm_base + i);
		if (wc.byte_len != o->size)
			fail("%s %u: byte_len %u, expected %zu", what, i, wc.byte_len, o->size);
		for (size_t j = 0; j < o->size; j++)
			if (slice[j] != pattern(i, j))
				fail("%s %u: byte %zu is 0x%02x, expected 0x%02x", what, i, j, slice[j],
				     pattern(i, j));
	}
}

static void send_messages(const struct options *o, struct rdma *r)
{
	const char *what = o->sends ? "send" : "write";
	struct ibv_wc wc;
	int64_t deadline;

	fill_pattern(o, r);
	print_qp_line(o, r);
	/* The host programs its side, then sends GO. */
	wait_for_go();

	for (unsigned i = 0; i < o->count; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(r->buf + (size_t)i * o->size),
			.length = o->size,
			.lkey = r->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = o->sends ? IBV_WR_SEND_WITH_IMM : IBV_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IBV_SEND_SIGNALED,
			.imm_data = htobe32(o->imm_base + i),
		}, *bad;
		if (!o->sends)
			wr.wr.rdma = (typeof(wr.wr.rdma)){
				.remote_addr = o->peer_va + (uint64_t)i * o->size, .rkey = o->peer_rkey };
		check(ibv_post_send(r->qp, &wr, &bad), "ibv_post_send");
	}

	deadline = now_ms() + o->timeout_ms;
	for (unsigned i = 0; i < o->count; i++) {
		if (!next_completion(r, deadline, &wc))
			fail("timeout after %d ms: %u of %u %ss completed", o->timeout_ms, i, o->count,
			     what);
		if (wc.status != IBV_WC_SUCCESS)
			fail("%s %llu: completion status %s (vendor_err 0x%x)", what,
			     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.vendor_err);
		if (wc.opcode != (o->sends ? IBV_WC_SEND : IBV_WC_RDMA_WRITE) || wc.wr_id != i)
			fail("completion %u: opcode %d wr_id %llu, expected %s %u", i, wc.opcode,
			     (unsigned long long)wc.wr_id, o->sends ? "SEND" : "RDMA_WRITE", i);
	}
}

/* UDP echo over the same addresses RoCE uses: checks ARP and both directions of IPv4. */
static void ping(const struct options *o)
{
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = htons(o->udp_port),
				    .sin_addr = o->peer_ip };
	uint8_t *out = check_ptr(malloc(o->size + 1), "malloc");
	uint8_t *in = check_ptr(malloc(o->size + 1), "malloc");
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&peer, sizeof(peer)) < 0)
		fail("udp socket: %s", strerror(errno));
	for (unsigned i = 0; i < o->count; i++) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		for (size_t j = 0; j < o->size; j++)
			out[j] = pattern(i, j);
		if (send(fd, out, o->size, 0) != (ssize_t)o->size)
			fail("send: %s", strerror(errno));
		if (poll(&pfd, 1, o->timeout_ms) <= 0)
			fail("no echo for datagram %u within %d ms", i, o->timeout_ms);
		n = recv(fd, in, o->size + 1, 0);
		if (n < 0)
			fail("recv: %s", strerror(errno));
		if ((size_t)n != o->size || memcmp(in, out, o->size))
			fail("echo %u differs (%zd bytes)", i, n);
	}
	printf("FERROCE-VM PASS pings=%u bytes=%zu\n", o->count, o->size * o->count);
	fflush(stdout);
	exit(0);
}

int main(int argc, char **argv)
{
	struct options o;
	struct rdma r = { 0 };

	parse_options(argc, argv, &o);
	if (o.mode == MODE_PING)
		ping(&o);

	setup(&o, &r);
	if (o.mode == MODE_RECEIVE_WRITES || o.mode == MODE_RECEIVE_SENDS)
		receive_messages(&o, &r);
	else if (o.mode == MODE_RECEIVE_READS)
		expose_reads(&o, &r);
	else if (o.mode == MODE_SEND_READS)
		post_reads(&o, &r);
	else
		send_messages(&o, &r);

	printf("FERROCE-VM PASS %s=%u bytes=%zu\n", o.reads ? "reads" : o.sends ? "sends" : "writes",
	       o.count, o.size * o.count);
	fflush(stdout);
	/* Resources are released by the kernel when the process exits. */
	return 0;
}
