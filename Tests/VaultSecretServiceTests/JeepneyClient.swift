// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

/// A raw D-Bus client (Python, jeepney) for what the command-line tools cannot do: many
/// calls on one connection, malformed calls, a client that leaves mid-call, two clients
/// at once. `python3 SCRIPT SCENARIO`; prints `ok` last when every check held, else a
/// line starting `FAIL`.
let jeepneyClient = #"""
    import os, sys, time, socket
    from jeepney import DBusAddress, new_method_call, MessageType, HeaderFields
    from jeepney.io.blocking import open_dbus_connection

    ROOT = '/org/freedesktop/secrets'
    SERVICE = DBusAddress(ROOT, bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Service')
    LOGIN = DBusAddress(ROOT + '/collection/login', bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Collection')

    def call(conn, address, method, signature=None, body=(), timeout=30):
        reply = conn.send_and_get_reply(new_method_call(address, method, signature, body), timeout=timeout)
        if reply.header.message_type == MessageType.error:
            return ('error', reply.header.fields[HeaderFields.error_name])
        return ('ok', reply.body)

    def expect(condition, what):
        if not condition:
            print('FAIL', what)
            sys.exit(1)

    def plain_session(conn):
        kind, body = call(conn, SERVICE, 'OpenSession', 'sv', ('plain', ('s', '')))
        expect(kind == 'ok', 'OpenSession plain: %r' % (body,))
        return body[1]

    def secret_struct(session, value):
        return (session, b'', value, 'text/plain')

    def item_properties(attributes, label='l'):
        return {'org.freedesktop.Secret.Item.Label': ('s', label), 'org.freedesktop.Secret.Item.Attributes': ('a{ss}', attributes)}

    scenario = sys.argv[1]
    conn = open_dbus_connection(bus='SESSION')

    if scenario == 'sessions':
        paths = [plain_session(conn) for _ in range(256)]
        expect(len(set(paths)) == 256, 'distinct sessions')
        # The 257th opens; the client's oldest session gives way (bounded, and a client
        # that never closes its sessions keeps working).
        newest = plain_session(conn)
        oldest = DBusAddress(paths[0], bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Session')
        expect(call(conn, oldest, 'Close')[1] == 'org.freedesktop.Secret.Error.NoSuchObject', 'the oldest session was closed')
        session = DBusAddress(paths[2], bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Session')
        expect(call(conn, session, 'Close')[0] == 'ok', 'Close')
        expect(call(conn, session, 'Close')[1] == 'org.freedesktop.Secret.Error.NoSuchObject', 'Close twice')
        plain_session(conn)
        # Another client's session is not this client's.
        other = open_dbus_connection(bus='SESSION')
        kind, name = call(other, LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'a': 'b'}), secret_struct(paths[1], b'x'), True))
        expect(name == 'org.freedesktop.Secret.Error.NoSession', 'a session of another client: %r' % (name,))
        other.close()
        kind, name = call(conn, SERVICE, 'OpenSession', 'sv', ('rot13', ('s', '')))
        expect(name == 'org.freedesktop.DBus.Error.NotSupported', 'an unknown algorithm: %r' % (name,))

    elif scenario == 'malformed':
        session = plain_session(conn)
        checks = [
            (SERVICE, 'OpenSession', 'ss', ('plain', '')),
            (SERVICE, 'SearchItems', 'as', (['a'],)),
            (SERVICE, 'SearchItems', 'a{ss}', ({('k%d' % i): 'v' for i in range(300)},)),
            (SERVICE, 'SearchItems', 'a{ss}', ({'k': 'v' * 5000},)),
            (SERVICE, 'GetSecrets', 'ao', ([ROOT + '/collection/login/x'],)),
            (LOGIN, 'CreateItem', 'a{sv}(oayays)', (item_properties({}), secret_struct(session, b'x'))),
            (LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({('k%d' % i): 'v' for i in range(300)}), secret_struct(session, b'x'), True)),
            (LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'k': 'v'}, 'L' * 5000), secret_struct(session, b'x'), True)),
            (LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'k': 'v'}), secret_struct(session, b'x' * (2 << 20)), True)),
            (LOGIN, 'CreateItem', 'a{sv}(oayays)b', ({'org.freedesktop.Secret.Item.Attributes': ('s', 'no')}, secret_struct(session, b'x'), True)),
        ]
        for address, method, signature, body in checks:
            kind, name = call(conn, address, method, signature, body)
            expect(kind == 'error' and name == 'org.freedesktop.DBus.Error.InvalidArgs', '%s(%s): %r' % (method, signature, name))
        unknown = secret_struct(ROOT + '/session/999', b'x')
        kind, name = call(conn, LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'k': 'v'}), unknown, True))
        expect(name == 'org.freedesktop.Secret.Error.NoSession', 'an unknown session: %r' % (name,))
        for path, want in [(ROOT + '/collection/nope', 'org.freedesktop.Secret.Error.NoSuchObject'),
                           (ROOT + '/collection/login/v0000', 'org.freedesktop.Secret.Error.NoSuchObject'),
                           (ROOT + '/collection/login/a/b', 'org.freedesktop.DBus.Error.UnknownObject'),
                           (ROOT + '/x/y/z/w', 'org.freedesktop.DBus.Error.UnknownObject')]:
            address = DBusAddress(path, bus_name='org.freedesktop.secrets', interface='org.freedesktop.DBus.Properties')
            interface = 'org.freedesktop.Secret.Collection' if path.count('/') == 5 else 'org.freedesktop.Secret.Item'
            kind, name = call(conn, address, 'GetAll', 's', (interface,))
            expect(kind == 'error' and name == want, '%s: %r' % (path, name))
        kind, name = call(conn, SERVICE, 'NoSuchMethod')
        expect(name == 'org.freedesktop.DBus.Error.UnknownMethod', 'an unknown method: %r' % (name,))
        # Still serving.
        kind, body = call(conn, LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'k': 'v'}), secret_struct(session, b'fine'), True))
        expect(kind == 'ok', 'a good call afterwards: %r' % (body,))

    elif scenario == 'prompt':
        kind, body = call(conn, SERVICE, 'Unlock', 'ao', ([ROOT + '/collection/login'],))
        expect(kind == 'ok' and body[0] == [] and body[1].startswith(ROOT + '/prompt/'), 'Unlock while locked: %r' % (body,))
        from jeepney import MatchRule, message_bus
        rule = MatchRule(type='signal', interface='org.freedesktop.Secret.Prompt', member='Completed', path=body[1])
        conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=10)
        prompt = DBusAddress(body[1], bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Prompt')
        with conn.filter(rule) as completed:
            expect(call(conn, prompt, 'Prompt', 's', ('',))[0] == 'ok', 'Prompt')
            signal = conn.recv_until_filtered(completed, timeout=10)
        expect(signal.body[0] is True, 'Completed dismissed: %r' % (signal.body,))
        expect(call(conn, prompt, 'Prompt', 's', ('',))[1] == 'org.freedesktop.Secret.Error.NoSuchObject', 'a completed prompt is gone')

    elif scenario == 'leave-mid-call':
        session = plain_session(conn)
        conn.send(new_method_call(LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'left': 'early'}), secret_struct(session, b'x'), True)))
        time.sleep(0.2)
        conn.close()
        print('ok')
        sys.exit(0)

    elif scenario == 'concurrent':
        import threading
        slow = open_dbus_connection(bus='SESSION')
        slow_result = []
        slow_started = time.monotonic()
        def slow_call():
            slow_result.append(call(slow, SERVICE, 'SearchItems', 'a{ss}', ({'slow': 'call'},)))
            slow_result.append(time.monotonic() - slow_started)
        thread = threading.Thread(target=slow_call)
        thread.start()
        time.sleep(1.0)
        started = time.monotonic()
        kind, body = call(conn, SERVICE, 'SearchItems', 'a{ss}', ({'k': 'v'},))
        quick = time.monotonic() - started
        expect(kind == 'ok', 'the quick search: %r' % (body,))
        expect(quick < 3.0, 'the quick search waited %.2f s behind the slow one' % quick)
        thread.join(30)
        expect(len(slow_result) == 2 and slow_result[0][0] == 'ok', 'the slow search: %r' % (slow_result,))
        expect(slow_result[1] >= 5.0, 'the slow search took only %.2f s: it was not the slow one' % slow_result[1])
        print('quick %.3f slow %.3f' % (quick, slow_result[1]))

    elif scenario == 'lock-signals':
        from jeepney import MatchRule, message_bus
        rule = MatchRule(type='signal', interface='org.freedesktop.DBus.Properties', member='PropertiesChanged', path=LOGIN.object_path)
        conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=10)
        properties = DBusAddress(LOGIN.object_path, bus_name='org.freedesktop.secrets', interface='org.freedesktop.DBus.Properties')
        kind, body = call(conn, properties, 'Get', 'ss', ('org.freedesktop.Secret.Collection', 'Locked'))
        expect(body == (('b', False),), 'Locked before: %r' % (body,))
        with conn.filter(rule) as changed:
            kind, body = call(conn, SERVICE, 'Lock', 'ao', ([LOGIN.object_path],))
            expect(kind == 'ok' and body[0] == [LOGIN.object_path] and body[1] == '/', 'Lock: %r' % (body,))
            signal = conn.recv_until_filtered(changed, timeout=10)
        expect(signal.body[0] == 'org.freedesktop.Secret.Collection' and signal.body[1].get('Locked') == ('b', True), 'signal: %r' % (signal.body,))
        kind, body = call(conn, properties, 'Get', 'ss', ('org.freedesktop.Secret.Collection', 'Locked'))
        expect(body == (('b', True),), 'Locked after: %r' % (body,))
        kind, body = call(conn, properties, 'Get', 'ss', ('org.freedesktop.Secret.Collection', 'Items'))
        expect(body == (('ao', []),), 'Items while locked: %r' % (body,))
        session = plain_session(conn)
        kind, name = call(conn, LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'k': 'v'}), secret_struct(session, b'x'), True))
        expect(name == 'org.freedesktop.Secret.Error.IsLocked', 'CreateItem while locked: %r' % (name,))

    elif scenario == 'item-secrets':
        from jeepney import MatchRule, message_bus
        rule = MatchRule(type='signal', interface='org.freedesktop.Secret.Collection', member='ItemCreated', path=LOGIN.object_path)
        conn.send_and_get_reply(message_bus.AddMatch(rule), timeout=10)
        session = plain_session(conn)
        with conn.filter(rule) as created:
            kind, body = call(conn, LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties({'app': 'raw'}), secret_struct(session, b'one'), False))
            expect(kind == 'ok' and body[1] == '/', 'CreateItem: %r' % (body,))
            signal = conn.recv_until_filtered(created, timeout=10)
        path = body[0]
        expect(signal.body == (path,), 'ItemCreated: %r' % (signal.body,))
        item = DBusAddress(path, bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Item')
        kind, body = call(conn, item, 'GetSecret', 'o', (session,))
        expect(kind == 'ok' and body[0] == (session, b'', b'one', 'text/plain'), 'GetSecret: %r' % (body,))
        kind, body = call(conn, item, 'SetSecret', '(oayays)', ((session, b'', b'\x00\xfftwo', 'application/octet-stream'),))
        expect(kind == 'ok', 'SetSecret: %r' % (body,))
        kind, body = call(conn, SERVICE, 'GetSecrets', 'aoo', ([path, ROOT + '/collection/login/nothing'], session))
        expect(kind == 'ok' and body[0] == {path: (session, b'', b'\x00\xfftwo', 'application/octet-stream')}, 'GetSecrets: %r' % (body,))
        # One client's calls are answered in order: the last of 20 pipelined writes wins.
        for n in range(20):
            conn.send(new_method_call(item, 'SetSecret', '(oayays)', ((session, b'', b'v%d' % n, 'text/plain'),)))
        kind, body = call(conn, item, 'GetSecret', 'o', (session,))
        expect(kind == 'ok' and body[0][2] == b'v19', 'after pipelined writes: %r' % (body,))
        kind, body = call(conn, item, 'SetSecret', '(oayays)', ((session, b'', b'\x00\xfftwo', 'application/octet-stream'),))
        kind, body = call(conn, SERVICE, 'Unlock', 'ao', ([path],))
        expect(kind == 'ok' and body == ([path], '/'), 'Unlock while unlocked: %r' % (body,))
        kind, body = call(conn, item, 'Delete')
        expect(kind == 'ok' and body == ('/',), 'Delete: %r' % (body,))
        expect(call(conn, item, 'GetSecret', 'o', (session,))[1] == 'org.freedesktop.Secret.Error.NoSuchObject', 'deleted')

    # One call each, for tests that change the vault between calls; `answer ok` or
    # `answer error NAME` is printed. Attributes are NAME=VALUE arguments.
    elif scenario == 'search':
        kind, body = call(conn, SERVICE, 'SearchItems', 'a{ss}', (dict(a.split('=', 1) for a in sys.argv[2:]),))
        expect(kind == 'ok', 'SearchItems: %r' % (body,))
        for found in body[0]:
            print('path', found)

    elif scenario == 'set-attributes':
        properties = DBusAddress(sys.argv[2], bus_name='org.freedesktop.secrets', interface='org.freedesktop.DBus.Properties')
        attributes = dict(a.split('=', 1) for a in sys.argv[3:])
        kind, body = call(conn, properties, 'Set', 'ssv', ('org.freedesktop.Secret.Item', 'Attributes', ('a{ss}', attributes)))
        print('answer', kind, body if kind == 'error' else '')

    elif scenario == 'set-secret':
        session = plain_session(conn)
        item = DBusAddress(sys.argv[2], bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Item')
        kind, body = call(conn, item, 'SetSecret', '(oayays)', ((session, b'', sys.argv[3].encode(), sys.argv[4]),))
        print('answer', kind, body if kind == 'error' else '')

    elif scenario == 'create':
        # create REPLACE(0/1) SECRET CONTENT-TYPE NAME=VALUE...: the new item's path as `path P`.
        session = plain_session(conn)
        attributes = dict(a.split('=', 1) for a in sys.argv[5:])
        secret = (session, b'', sys.argv[3].encode(), sys.argv[4])
        kind, body = call(conn, LOGIN, 'CreateItem', 'a{sv}(oayays)b', (item_properties(attributes), secret, sys.argv[2] == '1'))
        print('answer', kind, body if kind == 'error' else '')
        if kind == 'ok':
            print('path', body[0])

    elif scenario == 'delete':
        item = DBusAddress(sys.argv[2], bus_name='org.freedesktop.secrets', interface='org.freedesktop.Secret.Item')
        kind, body = call(conn, item, 'Delete')
        print('answer', kind, body if kind == 'error' else '')

    else:
        print('FAIL unknown scenario')
        sys.exit(2)

    print('ok')
    """#
