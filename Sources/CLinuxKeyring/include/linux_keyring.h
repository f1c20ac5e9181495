// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

// The Linux kernel's key retention service (keyrings(7)), through its two system calls.
// glibc has no wrappers (libkeyutils does, but is not needed for five calls), and Swift
// cannot call the variadic syscall(2): these small functions make the calls. Each returns
// the kernel's result; on failure -1 with errno set (EPERM or ENOSYS where a seccomp
// filter refuses key calls, ENOKEY when there is no such key, EKEYEXPIRED after expiry).
#ifndef VAULT_LINUX_KEYRING_H
#define VAULT_LINUX_KEYRING_H

#include <stddef.h>
#include <stdint.h>

/// Adds (or replaces) a key of type "user" named `description` to the user keyring; its id.
long vault_keyring_add(const char *description, const void *payload, size_t length);
/// The id of the key of type "user" named `description` in the user keyring.
long vault_keyring_search(const char *description);
/// Copies at most `length` bytes of key `id`'s payload; the payload's full length.
long vault_keyring_read(int32_t id, void *buffer, size_t length);
/// Expires key `id` after `seconds` (0: never).
long vault_keyring_set_timeout(int32_t id, unsigned int seconds);
/// Sets key `id`'s permission mask (possessor, user, group, other bytes).
long vault_keyring_set_permissions(int32_t id, uint32_t permissions);
/// Invalidates key `id` at once.
long vault_keyring_invalidate(int32_t id);
/// Copies the ids of at most `count` keys linked in the user keyring; the byte length of the
/// whole list (4 bytes an id).
long vault_keyring_list(int32_t *ids, size_t count);
/// Copies key `id`'s description, "type;uid;gid;perm;name" with a NUL; the length it needs.
long vault_keyring_describe(int32_t id, char *buffer, size_t length);
/// The permission mask vault gives its keys: everything for the possessor and the owning
/// user but linking, nothing for the group or others.
uint32_t vault_keyring_owner_only(void);

#endif
