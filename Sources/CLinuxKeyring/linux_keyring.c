// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

#include "linux_keyring.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>
#include <unistd.h>

long vault_keyring_add(const char *description, const void *payload, size_t length) {
    return syscall(SYS_add_key, "user", description, payload, length, KEY_SPEC_USER_KEYRING);
}

long vault_keyring_search(const char *description) {
    return syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", description, 0);
}

long vault_keyring_read(int32_t id, void *buffer, size_t length) {
    return syscall(SYS_keyctl, KEYCTL_READ, id, buffer, length);
}

long vault_keyring_set_timeout(int32_t id, unsigned int seconds) {
    return syscall(SYS_keyctl, KEYCTL_SET_TIMEOUT, id, seconds);
}

long vault_keyring_set_permissions(int32_t id, uint32_t permissions) {
    return syscall(SYS_keyctl, KEYCTL_SETPERM, id, permissions);
}

long vault_keyring_invalidate(int32_t id) {
    return syscall(SYS_keyctl, KEYCTL_INVALIDATE, id);
}

long vault_keyring_list(int32_t *ids, size_t count) {
    return syscall(SYS_keyctl, KEYCTL_READ, KEY_SPEC_USER_KEYRING, ids, count * sizeof(int32_t));
}

long vault_keyring_describe(int32_t id, char *buffer, size_t length) {
    return syscall(SYS_keyctl, KEYCTL_DESCRIBE, id, buffer, length);
}

// keyctl(2) permission bits per class: view 0x01, read 0x02, write 0x04, search 0x08, link 0x10,
// setattr 0x20. vault grants all but link (the key stays where vault puts it).
#define VAULT_KEY_ALL_BUT_LINK 0x2f

uint32_t vault_keyring_owner_only(void) {
    return (VAULT_KEY_ALL_BUT_LINK << 24) | (VAULT_KEY_ALL_BUT_LINK << 16);
}
