// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import VaultStore

/// The `Secret` struct (`(oayays)`: session, parameters, value, content type) in and out,
/// through the caller's own session.
extension ProviderCore {
    /// The session at `path`, when `caller` opened it; else `NoSession`.
    func session(at path: String, caller: String) throws(ServiceFault) -> any TransferSession {
        guard case .session(let number) = ObjectPath(path, alias: { _ in nil }),
            let open = state.withLock({ $0.sessions[number] }), open.owner == caller
        else { throw .noSession }
        return open.session
    }

    /// The secret and content type a client sent.
    func receiveSecret(_ value: DBusValue, caller: String) throws(ServiceFault) -> (Secret, contentType: String) {
        guard case .tuple(let fields) = value, fields.count == 4, let path = fields[0].objectPath, case .bytes(let parameters) = fields[1],
            case .bytes(let sealed) = fields[2], let contentType = fields[3].string
        else { throw .invalidArgs("the secret is not a (oayays) struct") }
        guard sealed.count <= Limits.secretSize + 4096 else { throw .invalidArgs("the secret is larger than \(Limits.secretSize) bytes") }
        guard contentType.utf8.count <= Limits.contentTypeSize else { throw .invalidArgs("the content type is too long") }
        let session = try session(at: path, caller: caller)
        let bytes: [UInt8]
        do {
            bytes = try session.decrypt(parameters: parameters, value: sealed)
        } catch {
            throw .invalidArgs("the secret could not be read in this session")
        }
        guard bytes.count <= Limits.secretSize else { throw .invalidArgs("the secret is larger than \(Limits.secretSize) bytes") }
        return (Secret(bytes: bytes), contentType.isEmpty ? "text/plain" : contentType)
    }

    /// The `(oayays)` of `item`'s secret for the session at `path`.
    func sendSecret(_ item: ModelItem, sessionPath: String, session: any TransferSession) throws(ServiceFault) -> DBusValue {
        let sealed: (parameters: [UInt8], value: [UInt8])
        do {
            sealed = try session.encrypt(item.secret.bytes)
        } catch {
            throw .failed("the secret could not be sent in this session")
        }
        return .tuple([.objectPath(sessionPath), .bytes(sealed.parameters), .bytes(sealed.value), .string(item.contentType)])
    }
}
