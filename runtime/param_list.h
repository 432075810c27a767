/*
 * param_list.h - every RCMPI_<NAME> environment parameter, in one table.
 *
 * The library, mpirun, rcmpid and rcmpi_info read parameters only through
 * this table (runtime/param.h: rc_param_int(RC_P_<NAME>) and friends), so
 * the code, `rcmpi_info --param` and the READMEs cannot disagree: a test
 * (test/unit/test_param) checks that every entry parses its default and
 * that every RCMPI_ name the READMEs document is here, and the other way
 * round.
 *
 *   RC_PARAM(NAME, TYPE, DEFAULT, MIN, MAX, WHO, DESCRIPTION)
 *
 * NAME     without the RCMPI_ prefix
 * TYPE     BOOL (1/0, yes/no, true/false, on/off), INT (a number, k/m/g
 *          suffixes accepted), SIZE (bytes, k/m/g suffixes), SECONDS (a
 *          decimal number > 0), STR (free text), LIST (comma-separated)
 * DEFAULT  as a user would write it; "" none; "auto" computed at run time
 *          (then "auto" is also a valid value)
 * MIN, MAX INT and SIZE: the accepted range (some readers narrow MAX at
 *          run time, as the description says); SECONDS: MAX only
 * WHO      the component that reads it
 *
 * Names starting RCMPI_TEST_ or RCMPI_VM_ belong to the test harness
 * (scripts): they are never reported as unknown.
 */

/* ---- runtime ------------------------------------------------------------- */
RC_PARAM(VERBOSE, INT, "0", 0, 100, "runtime",
	 "0: errors and warnings only; 1 and up: debug messages")
RC_PARAM(YIELD, BOOL, "0", 0, 0, "runtime",
	 "yield the CPU while waiting even when the node is not "
	 "oversubscribed")
RC_PARAM(POLLS_BEFORE_YIELD, INT, "auto", 0, 1L << 30, "runtime",
	 "empty progress polls in a row after which a waiting rank yields "
	 "the CPU at each further one (lets kernel work on its core run); "
	 "0: never; auto: 1000 over a software RDMA device (Soft-RoCE, "
	 "siw), else 0")
RC_PARAM(SPIN_POLLS, INT, "64", 0, 1L << 20, "runtime",
	 "looks a blocking receive takes at its peer's eager ring (verbs) "
	 "between two progress calls while its message may come that way; "
	 "0: none")
RC_PARAM(BOOT_RETRIES, INT, "3", 0, 10, "runtime",
	 "times a rank whose PMIx server is alive but turned its PMIx_Init "
	 "away starts its program again from the top (after 0.1, 0.2, "
	 "0.4 s ...); 0: fail at once")
RC_PARAM(BOOT_TRY, INT, "0", 0, 10, "runtime",
	 "set by the library for the program it starts again: the how "
	 "manyth start this is")
RC_PARAM(PARAMS_CHECKED, BOOL, "0", 0, 0, "runtime",
	 "set by mpirun and rcmpid for the ranks: the environment was "
	 "already checked for unknown RCMPI_ names")
RC_PARAM(HANDLE_QUARANTINE, INT, "1024", 0, 1L << 24, "runtime",
	 "frees of a kind before a freed object's slot is reused (a stale "
	 "handle is recognised until then)")
RC_PARAM(REQ_QUARANTINE, INT, "64", 0, 1L << 24, "runtime",
	 "the same for requests")

/* ---- pt2pt --------------------------------------------------------------- */
RC_PARAM(TRANSPORTS, LIST, "shm,verbs,tcp", 0, 0, "pt2pt",
	 "transports to use, the first that reaches a peer wins (shm, "
	 "verbs, tcp); one alone sends everything through it")
RC_PARAM(RNDV_MODE, STR, "get", 0, 0, "pt2pt",
	 "rendezvous: get (receiver reads), put (sender writes), frag "
	 "(through active messages)")
RC_PARAM(EAGER_LIMIT, SIZE, "0", 0, 1L << 30, "pt2pt",
	 "caps every transport's eager limit (bytes; 0: no cap)")

/* ---- shared memory ------------------------------------------------------- */
RC_PARAM(SHM_EAGER_LIMIT, SIZE, "auto", 0, 1L << 30, "shm",
	 "shared-memory eager limit (bytes; at most half a ring; auto: "
	 "where two copies cost less than one CMA call, measured at start, "
	 "at least 4 KiB)")
RC_PARAM(SHM_RING_SIZE, SIZE, "auto", 4096, 1L << 30, "shm",
	 "bytes of each sender's ring (auto: 256 KiB, less past 64 local "
	 "ranks)")
RC_PARAM(SHM_CMA, BOOL, "1", 0, 0, "shm",
	 "single-copy rendezvous with CMA (process_vm_readv); 0: two copies")
RC_PARAM(SHM_CMA_CHUNK, SIZE, "4m", 4096, 1L << 30, "shm",
	 "bytes per CMA call (pipeline chunk)")

/* ---- verbs --------------------------------------------------------------- */
RC_PARAM(VERBS_DEVICE, STR, "", 0, 0, "verbs",
	 "RDMA device and port to use, name[:port] (default: the first "
	 "ACTIVE port)")
RC_PARAM(NET_IF, STR, "", 0, 0, "verbs",
	 "use the RDMA device behind this network interface")
RC_PARAM(VERBS_GID_INDEX, INT, "auto", 0, 65535, "verbs",
	 "RoCE GID index (auto: RoCE v2, IPv4-mapped first); a bad index "
	 "is an error")
RC_PARAM(VERBS_CM, STR, "auto", 0, 0, "verbs",
	 "QP wiring: modex (all QPs at MPI_Init), rdmacm (on first use), "
	 "ud (on first use, by a handshake over UD: no IP needed) or auto "
	 "(modex up to VERBS_CM_AUTO_RANKS ranks; past them rdmacm on RoCE "
	 "with IPv4, else ud)")
RC_PARAM(VERBS_CM_AUTO_RANKS, INT, "64", 1, 1L << 30, "verbs",
	 "auto wiring: the largest job wired at MPI_Init (modex)")
RC_PARAM(VERBS_CM_TIMEOUT, INT, "5000", 100, 600000, "verbs",
	 "rdmacm: milliseconds for address and route resolution and "
	 "connection")
RC_PARAM(VERBS_UD_TIMEOUT, INT, "20000", 100, 1L << 30, "verbs",
	 "ud: milliseconds a connection handshake waits for any word from "
	 "the peer (its agent says it lives while it computes)")
RC_PARAM(VERBS_UD_AGENT, BOOL, "1", 0, 0, "verbs",
	 "ud: a thread answers peers' handshakes while this rank computes "
	 "outside MPI (without it, such a rank answers late)")
RC_PARAM(VERBS_SL, INT, "0", 0, 15, "verbs", "InfiniBand service level")
RC_PARAM(VERBS_TC, INT, "0", 0, 255, "verbs", "RoCE traffic class")
RC_PARAM(VERBS_HOP_LIMIT, INT, "64", 1, 255, "verbs", "RoCE hop limit")
RC_PARAM(VERBS_EAGER_LIMIT, SIZE, "8192", 0, 1L << 20, "verbs",
	 "verbs eager limit (bytes)")
RC_PARAM(VERBS_INLINE, SIZE, "512", 0, 4096, "verbs",
	 "inline data asked of the device (halved until it accepts)")
RC_PARAM(VERBS_RQ_SIZE, INT, "256", 16, 65536, "verbs",
	 "receive buffers in the shared receive queue (at least 4 per peer)")
RC_PARAM(VERBS_RX_BATCH, INT, "16", 1, 1024, "verbs",
	 "receive buffers reposted at once")
RC_PARAM(VERBS_CREDITS, INT, "32", 2, 4096, "verbs",
	 "largest credit window per peer")
RC_PARAM(VERBS_IDLE_MS, INT, "200", 0, 1L << 30, "verbs",
	 "a peer silent this long gives its credits back when others want "
	 "them, and its eager ring when another peer waits (0: never)")
RC_PARAM(VERBS_BOUNCE, INT, "64", 2, 65536, "verbs",
	 "registered send (bounce) buffers")
RC_PARAM(VERBS_SQ_SIZE, INT, "128", 8, 16384, "verbs",
	 "send work requests per QP")
RC_PARAM(VERBS_SIGNAL, INT, "32", 1, 4096, "verbs",
	 "a signaled completion every N inline sends (at most "
	 "VERBS_SQ_SIZE/4)")
RC_PARAM(VERBS_SEND_CQE, INT, "1024", 16, 65536, "verbs",
	 "signaled send work requests outstanding at once")
RC_PARAM(VERBS_RDMA_CHUNK, SIZE, "1m", 4096, 1L << 30, "verbs",
	 "rendezvous pipeline chunk (bytes)")
RC_PARAM(VERBS_MAX_RDMA, INT, "4", 1, 64, "verbs",
	 "rendezvous chunks in flight per request")
RC_PARAM(VERBS_RD_ATOM, INT, "16", 1, 255, "verbs",
	 "RDMA READs in flight per QP")
RC_PARAM(VERBS_RD_FENCE, INT, "auto", 0, 1, "verbs",
	 "post nothing behind an RDMA READ or atomic on a QP to another "
	 "device until it completes (auto: on Soft-RoCE, whose completer "
	 "can lose such a result after a retransmission)")
RC_PARAM(VERBS_TIMEOUT, INT, "18", 1, 31, "verbs",
	 "QP local ACK timeout (4.096 us * 2^N)")
RC_PARAM(VERBS_RETRY, INT, "6", 0, 7, "verbs", "QP transport retries")
RC_PARAM(VERBS_RNR_RETRY, INT, "0", 0, 7, "verbs",
	 "QP RNR retries (credits keep RNR from happening)")
RC_PARAM(VERBS_RCACHE, BOOL, "1", 0, 0, "verbs",
	 "registration cache for rendezvous buffers")
RC_PARAM(VERBS_RCACHE_ENTRIES, INT, "1024", 1, 1L << 20, "verbs",
	 "registrations the cache keeps")
RC_PARAM(VERBS_RCACHE_SIZE, SIZE, "0", 0, 1L << 50, "verbs",
	 "bytes the cache keeps registered (0: no limit)")
RC_PARAM(VERBS_FP_RINGS, INT, "8", 0, 4096, "verbs",
	 "peers given an RDMA-write eager ring (0: none, SRQ only)")
RC_PARAM(VERBS_FP_SLOTS, INT, "32", 2, 64, "verbs",
	 "slots per eager ring")
RC_PARAM(VERBS_FP_SIZE, SIZE, "2048", 64, 65536, "verbs",
	 "bytes per eager-ring slot (a multiple of 64)")
RC_PARAM(VERBS_FP_THRESHOLD, INT, "32", 1, 1L << 30, "verbs",
	 "messages from a peer through the SRQ before it gets a ring")
RC_PARAM(VERBS_MALLOPT, BOOL, "1", 0, 0, "verbs",
	 "keep malloc from returning memory to the kernel (fewer "
	 "invalidations)")

/* ---- tcp ---------------------------------------------------------------- */
RC_PARAM(TCP_IF, STR, "", 0, 0, "tcp",
	 "interface name, IPv4 address or subnet (a.b.c.d/n) to listen on "
	 "(default: the first interface up and not loopback, else loopback)")
RC_PARAM(TCP_EAGER_LIMIT, SIZE, "65536", 0, 1L << 30, "tcp",
	 "tcp eager limit (bytes; at most TCP_MAX_MSG less 64)")
RC_PARAM(TCP_MAX_MSG, SIZE, "262144", 4096, 1L << 30, "tcp",
	 "largest message on a connection: eager sends and rendezvous "
	 "fragments (bytes)")
RC_PARAM(TCP_QUEUE, SIZE, "4m", 0, 1L << 40, "tcp",
	 "bytes queued per peer before a send waits (at least two largest "
	 "messages)")
RC_PARAM(TCP_CONNECT_TIMEOUT, INT, "10", 1, 3600, "tcp",
	 "seconds a peer may refuse connections before it counts as failed")
RC_PARAM(TCP_KEEPALIVE, INT, "30", 0, 86400, "tcp",
	 "seconds an idle connection may go unanswered (TCP keepalive "
	 "probes: a node gone without a word) before its peer counts as "
	 "failed; 0: no keepalive")

/* ---- collectives --------------------------------------------------------- */
#define RC_PARAM_COLL_ALG(NAME, coll)                                     \
	RC_PARAM(COLL_##NAME, STR, "auto", 0, 0, "coll",                  \
		 coll ": force this algorithm (auto: choose by size and " \
		      "ranks)")
RC_PARAM_COLL_ALG(BARRIER, "barrier")
RC_PARAM_COLL_ALG(BCAST, "bcast")
RC_PARAM_COLL_ALG(REDUCE, "reduce")
RC_PARAM_COLL_ALG(ALLREDUCE, "allreduce")
RC_PARAM_COLL_ALG(GATHER, "gather")
RC_PARAM_COLL_ALG(GATHERV, "gatherv")
RC_PARAM_COLL_ALG(SCATTER, "scatter")
RC_PARAM_COLL_ALG(SCATTERV, "scatterv")
RC_PARAM_COLL_ALG(ALLGATHER, "allgather")
RC_PARAM_COLL_ALG(ALLGATHERV, "allgatherv")
RC_PARAM_COLL_ALG(ALLTOALL, "alltoall")
RC_PARAM_COLL_ALG(ALLTOALLV, "alltoallv")
RC_PARAM_COLL_ALG(REDUCE_SCATTER, "reduce_scatter")
RC_PARAM_COLL_ALG(REDUCE_SCATTER_BLOCK, "reduce_scatter_block")
RC_PARAM_COLL_ALG(SCAN, "scan")
RC_PARAM_COLL_ALG(EXSCAN, "exscan")
RC_PARAM_COLL_ALG(ALLTOALLW, "alltoallw")
RC_PARAM_COLL_ALG(NEIGHBOR_ALLGATHER, "neighbor_allgather")
RC_PARAM_COLL_ALG(NEIGHBOR_ALLGATHERV, "neighbor_allgatherv")
RC_PARAM_COLL_ALG(NEIGHBOR_ALLTOALL, "neighbor_alltoall")
RC_PARAM_COLL_ALG(NEIGHBOR_ALLTOALLV, "neighbor_alltoallv")
RC_PARAM_COLL_ALG(NEIGHBOR_ALLTOALLW, "neighbor_alltoallw")
#undef RC_PARAM_COLL_ALG
/* on intercommunicators (coll/alg_inter.c), the collectives defined there */
#define RC_PARAM_COLL_INTER_ALG(NAME, coll)                               \
	RC_PARAM(COLL_INTER_##NAME, STR, "auto", 0, 0, "coll",            \
		 coll " on intercommunicators: force this algorithm "     \
		      "(auto: choose by size and ranks)")
RC_PARAM_COLL_INTER_ALG(BARRIER, "barrier")
RC_PARAM_COLL_INTER_ALG(BCAST, "bcast")
RC_PARAM_COLL_INTER_ALG(REDUCE, "reduce")
RC_PARAM_COLL_INTER_ALG(ALLREDUCE, "allreduce")
RC_PARAM_COLL_INTER_ALG(GATHER, "gather")
RC_PARAM_COLL_INTER_ALG(GATHERV, "gatherv")
RC_PARAM_COLL_INTER_ALG(SCATTER, "scatter")
RC_PARAM_COLL_INTER_ALG(SCATTERV, "scatterv")
RC_PARAM_COLL_INTER_ALG(ALLGATHER, "allgather")
RC_PARAM_COLL_INTER_ALG(ALLGATHERV, "allgatherv")
RC_PARAM_COLL_INTER_ALG(ALLTOALL, "alltoall")
RC_PARAM_COLL_INTER_ALG(ALLTOALLV, "alltoallv")
RC_PARAM_COLL_INTER_ALG(ALLTOALLW, "alltoallw")
RC_PARAM_COLL_INTER_ALG(REDUCE_SCATTER, "reduce_scatter")
RC_PARAM_COLL_INTER_ALG(REDUCE_SCATTER_BLOCK, "reduce_scatter_block")
#undef RC_PARAM_COLL_INTER_ALG
RC_PARAM(COLL_BCAST_SHORT, SIZE, "12288", 0, 1L << 40, "coll",
	 "bcast: binomial below this many bytes")
RC_PARAM(COLL_BCAST_MIN_PROCS, INT, "8", 1, 1L << 30, "coll",
	 "bcast: binomial below this many ranks")
RC_PARAM(COLL_REDUCE_SHORT, SIZE, "2048", 0, 1L << 40, "coll",
	 "reduce: binomial up to this many bytes")
RC_PARAM(COLL_REDUCE_SEGSIZE, SIZE, "0", 0, 1L << 40, "coll",
	 "binomial reduce: segment size for large vectors (0: off)")
RC_PARAM(COLL_ALLREDUCE_SHORT, SIZE, "2048", 0, 1L << 40, "coll",
	 "allreduce: recursive doubling up to this many bytes")
RC_PARAM(COLL_ALLREDUCE_RING, SIZE, "0", 0, 1L << 40, "coll",
	 "allreduce: ring from this many bytes on (0: off)")
RC_PARAM(COLL_ALLGATHER_SHORT, SIZE, "81920", 0, 1L << 40, "coll",
	 "allgather: recursive doubling / Bruck below this total")
RC_PARAM(COLL_GATHER_SHORT, SIZE, "4096", 0, 1L << 40, "coll",
	 "gather, scatter: binomial below this block size")
RC_PARAM(COLL_ALLTOALL_SHORT, SIZE, "256", 0, 1L << 40, "coll",
	 "alltoall: Bruck up to this block size")
RC_PARAM(COLL_ALLTOALL_MEDIUM, SIZE, "32768", 0, 1L << 40, "coll",
	 "alltoall: linear up to this block size")
RC_PARAM(COLL_REDSCAT_SHORT, SIZE, "524288", 0, 1L << 40, "coll",
	 "reduce_scatter: recursive halving below this total")
RC_PARAM(COLL_TMP_CACHE, SIZE, "16m", 0, 1L << 40, "coll",
	 "largest scratch arena a cached schedule keeps")

/* ---- one-sided ---------------------------------------------------------- */
RC_PARAM(RMA_SHM, BOOL, "1", 0, 0, "rma",
	 "windows whose members all share this node use the shared-memory "
	 "path (direct copies, accumulates under a lock per target, lock "
	 "words); 0: active messages")
RC_PARAM(RMA_DIRECT, BOOL, "1", 0, 0, "rma",
	 "put and get of create/allocate windows by the transport's own "
	 "read and write (CMA on a node, RDMA over verbs); 0: active messages")
RC_PARAM(RMA_DIRECT_MIN, SIZE, "auto", 0, 1L << 40, "rma",
	 "bytes from which a contiguous put or get goes direct (auto: the "
	 "transport's eager limit)")
RC_PARAM(RMA_DIRECT_LIST, INT, "16", 0, 1L << 20, "rma",
	 "a non-contiguous put or get goes direct as a list of up to this "
	 "many transport reads or writes (0: never; else packed into active "
	 "messages)")
RC_PARAM(RMA_DIRECT_LIST_SMALL, INT, "4", 0, 1L << 20, "rma",
	 "at most this many when the runs average under 4 KiB")
RC_PARAM(RMA_ATOMIC, STR, "auto", 0, 0, "rma",
	 "atomic agent of create/allocate windows off the shared-memory "
	 "path: auto (the device when every member has device atomics and "
	 "not all are on one node), device (whenever every member has "
	 "them), am (the target's CPU, through active messages)")

/* ---- launcher (mpirun, rcmpid) ------------------------------------------- */
RC_PARAM(LAUNCHER_VERBOSE, BOOL, "0", 0, 0, "mpirun",
	 "narrate the job: each rank's start, PMIx events and end")
RC_PARAM(LAUNCHER_STATS, BOOL, "0", 0, 0, "mpirun",
	 "at the end, one line of mpirun's own costs: connections, bytes "
	 "and messages to and from daemons, its CPU time, the tree's depth")
RC_PARAM(LAUNCH_AGENT, STR, "ssh -x -o BatchMode=yes -o ConnectTimeout=10", 0,
	 0, "mpirun",
	 "command that starts the daemons: AGENT HOST COMMAND "
	 "(--launch-agent)")
RC_PARAM(LAUNCH_TIMEOUT, SECONDS, "30", 0, 1000000, "mpirun",
	 "seconds a daemon has to connect back, and again to start")
RC_PARAM(HEARTBEAT_TIMEOUT, SECONDS, "10", 0, 1000000, "mpirun",
	 "seconds of silence after which a host is lost")
RC_PARAM(LAUNCH_RADIX, INT, "16", 0, 4096, "mpirun",
	 "daemons each daemon starts and relays for (launch tree); 0: "
	 "mpirun starts and serves every daemon itself")
RC_PARAM(HEAD_ADDRESS, LIST, "", 0, 0, "mpirun",
	 "mpirun's IPv4 addresses the daemons connect to (default: all)")
RC_PARAM(DAEMON, STR, "", 0, 0, "mpirun",
	 "path of rcmpid on the other hosts (default: next to mpirun)")
RC_PARAM(HOSTFILE, STR, "", 0, 0, "mpirun",
	 "hostfile used when no -H or --hostfile is given (before a batch "
	 "allocation's hosts)")
RC_PARAM(AUTH, STR, "secret", 0, 0, "mpirun",
	 "how mpirun and its daemons authenticate each other: secret "
	 "(HMAC-SHA-256 under a per-job secret) or munge (--auth)")

/* ---- rcmpi_info -------------------------------------------------------- */
RC_PARAM(TEST_ROOT, STR, "", 0, 0, "rcmpi_info, mpirun, rcmpid",
	 "tests only: read proc/, sys/ and dev/shm under this folder "
	 "instead of / (rcmpi_info's probes, the launcher's CPU topology)")

/* ---- compiler wrappers (read by the mpicc and mpicxx scripts) ------------ */
RC_PARAM(CC, STR, "", 0, 0, "mpicc",
	 "C compiler behind mpicc (default: configure's)")
RC_PARAM(CXX, STR, "", 0, 0, "mpicxx",
	 "C++ compiler behind mpicxx (default: configure's)")
