// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

// Linux calls that Swift cannot make directly: variadic ones (prctl), ones Glibc's Swift
// module does not export (fgetxattr, close_range), and a sock_diag netlink exchange, whose
// structures are C's. Each returns as the call does: on failure -1 with errno set.
#ifndef VAULT_LINUX_SYSTEM_H
#define VAULT_LINUX_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// prctl(PR_SET_DUMPABLE, 0): no core file, and other processes of the user may not attach
/// to this one or read its memory through /proc. 0, or -1 with errno.
int vault_set_not_dumpable(void);

/// fgetxattr(2): copies at most `size` bytes of attribute `name` of descriptor `fd`; its length.
ssize_t vault_fgetxattr(int fd, const char *name, void *value, size_t size);

/// close_range(first, ~0U, CLOSE_RANGE_CLOEXEC): every descriptor from `first` on is closed
/// at the next exec. -1 with ENOSYS or EINVAL on a kernel older than 5.11.
int vault_close_range_cloexec(unsigned int first);

/// The uid owning the TCP socket whose local end is `local`:`local_port` and remote end
/// `remote`:`remote_port` (ports in host order; addresses in network order, 4 bytes for
/// AF_INET, 16 for AF_INET6), found by an exact NETLINK_SOCK_DIAG lookup (sock_diag(7),
/// unprivileged). 0 with `*uid` set when that socket is ESTABLISHED and live; -1 with errno
/// otherwise: ENOENT when there is no such socket or it is not established (a TIME_WAIT
/// socket, which the kernel shows as root's, is not a live one), or the netlink error.
int vault_tcp_socket_owner(int family, const void *local, uint16_t local_port, const void *remote, uint16_t remote_port,
                           uint32_t *uid);

#endif
