#ifndef VAULT_CLIBSECRET_SHIM_H
#define VAULT_CLIBSECRET_SHIM_H
// The D-Bus path functions (secret-paths.h: search and read by object path, without an
// item proxy per item) belong to libsecret's "unstable" API, unchanged since 0.7.
#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <libsecret/secret.h>

// A SecretService on a connection vault gives it. libsecret's own constructors always use
// GLib's shared session bus connection (SecretService's constructor sets `g-bus-type`), and
// a closed shared connection stays GLib's singleton until its "closed" signal is dispatched
// in the main context it was made in, which no vault process runs. This subclass only
// clears `g-bus-type` again after libsecret's constructor, so the proxy uses the
// `g-connection` it was given; items, collections, prompts and sessions made from it use
// that connection too.
static inline GObject *vault_bus_service_constructor(
    GType type, guint count, GObjectConstructParam *properties) {
    GObjectClass *parent = G_OBJECT_CLASS(g_type_class_peek(SECRET_TYPE_SERVICE));
    GObject *object = parent->constructor(type, count, properties);
    g_object_set(object, "g-bus-type", G_BUS_TYPE_NONE, NULL);
    return object;
}

static inline void vault_bus_service_class_init(gpointer klass, gpointer data) {
    (void)data;
    G_OBJECT_CLASS(klass)->constructor = vault_bus_service_constructor;
}

static inline GType vault_bus_service_get_type(void) {
    static gsize type = 0;
    if (g_once_init_enter(&type)) {
        GType registered = g_type_from_name("VaultBusService");
        if (registered == 0) {
            GTypeQuery query;
            g_type_query(SECRET_TYPE_SERVICE, &query);
            registered = g_type_register_static_simple(
                SECRET_TYPE_SERVICE, "VaultBusService", query.class_size, vault_bus_service_class_init, query.instance_size,
                NULL, (GTypeFlags)0);
        }
        g_once_init_leave(&type, registered);
    }
    return type;
}

// A new SecretService for org.freedesktop.secrets on `connection` (what
// secret_service_open_sync makes, on that connection). One reference for the caller; NULL
// with `*error` set on failure.
static inline SecretService *vault_secret_service_open_on(
    GDBusConnection *connection, GCancellable *cancellable, GError **error) {
    return (SecretService *)g_initable_new(
        vault_bus_service_get_type(), cancellable, error, "g-connection", connection, "flags", SECRET_SERVICE_NONE, NULL);
}
#endif
