/* SPDX-License-Identifier: GPL-2.0 */
/* The AF_SMC socket: struct asmc_sock, its states and life cycle, and the
 * proto_ops table that the socket layer calls.
 */
#ifndef ASMC_SOCKET_H
#define ASMC_SOCKET_H

#include <linux/list.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include "cdc.h"

/* Socket states as smc_diag reports them in smc_diag_msg.diag_state
 * (numbers are part of the user-visible ABI that smc tools decode).
 */
enum asmc_state {
	ASMC_ACTIVE		= 1,
	ASMC_INIT		= 2,
	ASMC_CLOSED		= 7,
	ASMC_LISTEN		= 10,	/* equals TCP_LISTEN: SO_ACCEPTCONN works */
	ASMC_PEERCLOSEWAIT1	= 20,
	ASMC_PEERCLOSEWAIT2	= 21,
	ASMC_APPFINCLOSEWAIT	= 24,
	ASMC_APPCLOSEWAIT1	= 22,
	ASMC_APPCLOSEWAIT2	= 23,
	ASMC_PEERFINCLOSEWAIT	= 25,
	ASMC_PEERABORTWAIT	= 26,
	ASMC_PROCESSABORT	= 27,
};

enum {
	ASMC_SOCK_CLOSE_DONE,	/* close_work freed the connection */
	ASMC_SOCK_RELEASED,	/* close_release handed the socket's own
				 * reference to close_work (SOCK_DEAD comes
				 * earlier: release() orphans first)
				 */
	ASMC_SOCK_PASSIVE_CLOSE, /* closed after the peer's orderly close */
	ASMC_SOCK_TCP_GONE,	/* tcp_gone_work queued (once) */
};

enum asmc_role {
	ASMC_ROLE_CLIENT,
	ASMC_ROLE_SERVER,
};

/* Socket-level options the user set on our sock that must also hold on the
 * internal TCP socket; the copy last applied, to spot changes cheaply.
 */
struct asmc_optshadow {
	unsigned long flags;	/* SOCK_KEEPOPEN, SOCK_LINGER, SOCK_URGINLINE */
	long rcvtimeo;
	long sndtimeo;
	int rcvbuf;
	int sndbuf;
	int lingertime;
	u32 priority;
	u32 mark;
	int bound_dev_if;
	u8 userlocks;
	u8 reuse;
	u8 reuseport;
};

/* Locking:
 * - lock_sock(&sk) protects sk_state, connect_pending, fallback_rsn,
 *   peer_diag, opts and the installation of clcsock callbacks.
 * - use_fallback is written once under lock_sock with release semantics
 *   and then read locklessly (asmc_is_fallback()); after it is set every
 *   operation is passed to clcsock, which TCP locks itself.
 * - clc_wait/clc_wait_head and err_wait/err_wait_head change only under
 *   lock_sock; the wait-queue heads' own locks order the wake functions.
 * - accept_lock protects accept_q, accept_node, hs_pending, accepting,
 *   listen_gen, slots_held and slot_gen; it nests outside the listening
 *   clcsock's request-queue lock (which guards sk_ack_backlog there).
 */
struct asmc_sock {
	struct sock		sk;		/* must stay first */
	struct socket		*clcsock;	/* internal TCP socket */
	struct list_head	all_node;	/* asmc_all_socks */
	u8			role;		/* enum asmc_role */
	bool			use_fallback;
	bool			smc_mode;	/* data goes over SMC-R */
	bool			corked;		/* TCP_CORK in SMC-R mode */
	unsigned long		flags;		/* ASMC_SOCK_* bits */
	struct asmc_conn	conn;		/* SMC-R state (smc_mode) */
	struct delayed_work	close_work;	/* frees conn after close */
	/* SMC-R: the peer ended the internal TCP connection without a word
	 * over SMC (asmc_close_watch_tcp)
	 */
	struct delayed_work	tcp_gone_work;
	bool			connect_pending; /* TCP connect or CLC running */
	bool			hs_queued;	/* hs_work scheduled (client) */
	u32			fallback_rsn;	/* local reason, CLC code */
	u32			peer_diag;	/* reason from peer's Decline */
	int			mirrored_err;	/* clcsk->sk_err copied to sk */
	struct asmc_optshadow	opts;
	/* SOL_SMC options (lock_sock to write, READ_ONCE to read): the
	 * handshake limitation of listen() (SMC_LIMIT_HS, from the netns
	 * sysctl at creation) and ASMC_SO_REUSEPORT, kept here, not in
	 * sk_reuseport, which the socket core reserves to inet sockets
	 */
	bool			limit_hs;
	bool			reuseport;

	/* our entry on clcsock's wait queue (connect, listen or, in SMC-R
	 * mode, the peer's FIN or reset)
	 */
	struct wait_queue_entry	clc_wait;
	struct wait_queue_head	*clc_wait_head;	/* NULL: not queued */
	/* fallback: entry on our own wait queue to mirror TCP errors */
	struct wait_queue_entry	err_wait;
	struct wait_queue_head	*err_wait_head;

	struct work_struct	hs_work;	/* connect/accept handshake */

	/* listener */
	struct work_struct	accept_work;
	spinlock_t		accept_lock;
	struct list_head	accept_q;	/* children ready for accept() */
	int			hs_pending;	/* children in handshake */
	bool			accepting;	/* children may be queued */
	u32			listen_gen;	/* bumped by every listen() */
	u32			slots_held;	/* TCP backlog slots children hold */

	/* child of a listener */
	struct asmc_sock	*listener;	/* ref held during handshake */
	struct list_head	accept_node;
	u32			slot_gen;	/* listen_gen of its slot, 0: none */
};

static inline struct asmc_sock *asmc_sk(const struct sock *sk)
{
	return (struct asmc_sock *)sk;
}

/* Before sleeping in a socket call: -EAGAIN when the time is up (or the
 * call must not block), the signal's errno when one is pending, else 0.
 */
static inline int asmc_wait_allowed(long timeo)
{
	if (!timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(timeo);
	return 0;
}

/* Queue @work of @sk on @wq; the queued work owns a reference to @sk,
 * which it drops when done. Already queued: nothing taken.
 */
static inline void asmc_sock_queue(struct sock *sk,
				   struct workqueue_struct *wq,
				   struct work_struct *work)
{
	sock_hold(sk);
	if (!queue_work(wq, work))
		sock_put(sk);
}

static inline bool asmc_is_fallback(const struct asmc_sock *smc)
{
	return smp_load_acquire(&smc->use_fallback);
}

extern struct proto asmc_proto;
extern struct proto asmc_proto6;
extern const struct net_proto_family asmc_family_ops;
extern struct workqueue_struct *asmc_wq;
extern struct workqueue_struct *asmc_llc_wq;	/* LLC requests of the peer */
extern struct workqueue_struct *asmc_hs_wq;	/* CLC handshakes */

struct asmc_sock *asmc_sock_alloc(struct net *net, struct socket *sock,
				  int protocol, struct socket *clcsock);
void asmc_sock_inherit(struct asmc_sock *child,
		       const struct asmc_sock *parent);
void asmc_sock_opts_sync(struct asmc_sock *smc);
void asmc_sock_opts_sync_if_changed(struct asmc_sock *smc);
void asmc_sock_set_state(struct asmc_sock *smc, int state);
void asmc_sock_kill(struct asmc_sock *smc, bool abort);
int asmc_socks_count(void);
void asmc_socks_show(struct seq_file *m, struct net *net);

void asmc_clc_watch(struct asmc_sock *smc, wait_queue_func_t func);
void asmc_clc_unwatch(struct asmc_sock *smc);
void asmc_clcsock_release(struct asmc_sock *smc);

int asmc_socket_init(void);
void asmc_socket_exit(void);

#endif /* ASMC_SOCKET_H */
