#ifndef VAULT_CLIBSECRET_SHIM_H
#define VAULT_CLIBSECRET_SHIM_H
// The D-Bus path functions (secret-paths.h: search and read by object path, without an
// item proxy per item) belong to libsecret's "unstable" API, unchanged since 0.7.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>
#endif
