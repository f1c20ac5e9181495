// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import NIOCore
import NIOEmbedded
import Testing
import VaultAgent
import VaultAgentProtocol
import VaultSync

/// The socket server's request reader on an in-memory channel: whatever ends the
/// connection, the server's wait on the request ends too.
@Suite("the agent's request reader", .offThePool) struct RequestReaderTests {
    /// A reader on a new channel, and the request it completes.
    private static func reader() throws -> (EmbeddedChannel, RequestReader, EventLoopFuture<[UInt8]>) {
        let channel = EmbeddedChannel()
        let promise = channel.eventLoop.makePromise(of: [UInt8].self)
        let reader = RequestReader(promise: promise)
        try channel.pipeline.syncOperations.addHandler(reader)
        return (channel, reader, promise.futureResult)
    }

    /// What the future holds now: the payload, the failure, or nil while it is pending.
    private static func outcome(_ future: EventLoopFuture<[UInt8]>) -> Result<[UInt8], any Error>? {
        let result = Locked<Result<[UInt8], any Error>?>(nil)
        future.whenComplete { outcome in result.withLock { $0 = outcome } }
        return result.withLock { $0 }
    }

    @Test("a whole frame completes the request with its payload")
    func aWholeFrameCompletesIt() throws {
        let (channel, _, request) = try Self.reader()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        let frame = AgentFrame.framed(Array("ping".utf8))
        try channel.writeInbound(ByteBuffer(bytes: frame.prefix(3)))
        #expect(Self.outcome(request) == nil, "three bytes are no frame")
        try channel.writeInbound(ByteBuffer(bytes: frame.dropFirst(3)))
        guard case .success(let payload) = Self.outcome(request) else {
            Issue.record("the frame did not complete the request")
            return
        }
        #expect(payload == Array("ping".utf8))
        _ = try? channel.finish()
    }

    /// A channel closed before it ever became active gets no `channelInactive`; the
    /// pipeline's teardown still removes the reader, which must fail the request (the
    /// server's wait on it kept a stopped agent refreshing tokens, attack review 37).
    @Test("the reader removed before any frame (a channel torn down unused) fails the request")
    func teardownFailsThePendingRequest() throws {
        let (channel, reader, request) = try Self.reader()
        #expect(Self.outcome(request) == nil)
        try channel.pipeline.syncOperations.removeHandler(reader).wait()
        guard case .failure(let error) = Self.outcome(request) else {
            Issue.record("the request is still pending after the reader was removed")
            return
        }
        #expect(error as? RequestReadFailure == .incomplete)
    }

    @Test("a connection that ends mid-frame fails the request")
    func anEndMidFrameFailsIt() throws {
        let (channel, _, request) = try Self.reader()
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(bytes: [0, 0, 0, 9, 1, 2]))
        try channel.close().wait()
        guard case .failure = Self.outcome(request) else {
            Issue.record("a half frame and a close left the request pending")
            return
        }
    }
}
