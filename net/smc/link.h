/* SPDX-License-Identifier: GPL-2.0 */
/* Link redundancy: the peer's RMBs on every link, adding a link on another
 * RoCE port (ADD_LINK with the rkey exchange), failover of connections.
 */
#ifndef ASMC_LINK_H
#define ASMC_LINK_H

struct asmc_ibdev;
struct asmc_lgr;
struct asmc_link;
struct asmc_llc_msg;
struct work_struct;

void asmc_link_add_work(struct work_struct *work);
void asmc_lgr_failover_work(struct work_struct *work);
void asmc_lgr_drop_dev(struct asmc_lgr *lgr, struct asmc_ibdev *dev);
int asmc_link_client_add(struct asmc_link *via, const struct asmc_llc_msg *m);

#endif /* ASMC_LINK_H */
