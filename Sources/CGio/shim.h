#ifndef VAULT_CGIO_SHIM_H
#define VAULT_CGIO_SHIM_H
// GDBus (GIO) for the Secret Service provider: the bus connection, exported objects,
// GVariant values. From Debian's libglib2.0-dev.
#include <gio/gio.h>
#endif
