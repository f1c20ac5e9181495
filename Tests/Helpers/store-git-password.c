// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.
//
// Stores an item the way later git's libsecret credential helper does (schema
// org.git.Password; attributes user, protocol, server, and port when given; the secret from
// standard input, which may carry password_expiry_utc= and oauth_refresh_token= lines), so
// vault's tests can read one on a Debian whose git is older. Test-only.
//
// Usage: store-git-password PROTOCOL HOST USER [PORT] < SECRET
#include <libsecret/secret.h>
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    static char secret[65536];
    size_t length = fread(secret, 1, sizeof secret - 1, stdin);
    secret[length] = '\0';
    const SecretSchema schema = {
        "org.git.Password", SECRET_SCHEMA_DONT_MATCH_NAME,
        {{"user", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"protocol", SECRET_SCHEMA_ATTRIBUTE_STRING},
         {"server", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"port", SECRET_SCHEMA_ATTRIBUTE_STRING},
         {NULL, 0}}};
    GHashTable *attributes = g_hash_table_new(g_str_hash, g_str_equal);
    g_hash_table_insert(attributes, "protocol", argv[1]);
    g_hash_table_insert(attributes, "server", argv[2]);
    g_hash_table_insert(attributes, "user", argv[3]);
    if (argc > 4) g_hash_table_insert(attributes, "port", argv[4]);
    GError *error = NULL;
    gboolean stored = secret_password_storev_sync(&schema, attributes, NULL, "Git: test item", secret, NULL, &error);
    g_hash_table_unref(attributes);
    if (!stored || error) {
        fprintf(stderr, "store-git-password: %s\n", error ? error->message : "not stored");
        return 1;
    }
    return 0;
}
