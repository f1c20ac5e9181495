#ifndef VAULT_CLIBSECRET_SHIM_H
#define VAULT_CLIBSECRET_SHIM_H
#include <libsecret/secret.h>
#endif
