// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#define _GNU_SOURCE
#include "linux_system.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

int vault_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

ssize_t vault_fgetxattr(int fd, const char *name, void *value, size_t size) { return fgetxattr(fd, name, value, size); }

int vault_close_range_cloexec(unsigned int first) {
#ifdef SYS_close_range
    return (int)syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC);
#else
    (void)first;
    errno = ENOSYS;
    return -1;
#endif
}

/// Ends a lookup: closes `fd`, keeps `error` in errno, and returns -1.
static int failed(int fd, int error) {
    close(fd);
    errno = error;
    return -1;
}

int vault_tcp_socket_owner(int family, const void *local, uint16_t local_port, const void *remote, uint16_t remote_port,
                           uint32_t *uid) {
    size_t length = family == AF_INET ? 4 : family == AF_INET6 ? 16 : 0;
    if (length == 0) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return -1;
    // The kernel answers at once; the bound only keeps a broken netlink from hanging a sign-in.
    struct timeval bound = {.tv_sec = 2, .tv_usec = 0};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound) != 0) return failed(fd, errno);

    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;  // one socket, looked up by its 4-tuple: no dump
    message.header.nlmsg_seq = 1;
    message.request.sdiag_family = (uint8_t)family;
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = ~0U;
    // The socket's own view: source = its local end, destination = its peer.
    message.request.id.idiag_sport = htons(local_port);
    message.request.id.idiag_dport = htons(remote_port);
    memcpy(message.request.id.idiag_src, local, length);
    memcpy(message.request.id.idiag_dst, remote, length);
    message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;

    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    ssize_t sent;
    do {
        sent = sendto(fd, &message, sizeof message, 0, (struct sockaddr *)&kernel, sizeof kernel);
    } while (sent < 0 && errno == EINTR);
    if (sent != (ssize_t)sizeof message) return failed(fd, sent < 0 ? errno : EIO);

    long aligned[2048];  // 16 KiB, aligned for struct nlmsghdr
    for (;;) {
        struct sockaddr_nl sender;
        socklen_t sender_length = sizeof sender;
        ssize_t received = recvfrom(fd, aligned, sizeof aligned, 0, (struct sockaddr *)&sender, &sender_length);
        if (received < 0 && errno == EINTR) continue;
        if (received < 0) return failed(fd, errno);
        if (received == 0) return failed(fd, ENOENT);
        // Only the kernel (port 0) answers; anything else is not read.
        if (sender_length < sizeof sender || sender.nl_family != AF_NETLINK || sender.nl_pid != 0) continue;
        int remaining = (int)received;
        for (struct nlmsghdr *header = (struct nlmsghdr *)aligned; NLMSG_OK(header, remaining);
             header = NLMSG_NEXT(header, remaining)) {
            if (header->nlmsg_seq != 1) continue;
            if (header->nlmsg_type == NLMSG_ERROR) {
                if (header->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr))) return failed(fd, EIO);
                const struct nlmsgerr *error = NLMSG_DATA(header);
                return failed(fd, error->error < 0 ? -error->error : ENOENT);
            }
            if (header->nlmsg_type == NLMSG_DONE) return failed(fd, ENOENT);
            if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY || header->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg))) continue;
            const struct inet_diag_msg *socket_state = NLMSG_DATA(header);
            if (socket_state->idiag_state != TCP_ESTABLISHED || socket_state->idiag_inode == 0) return failed(fd, ENOENT);
            *uid = socket_state->idiag_uid;
            close(fd);
            return 0;
        }
    }
}
