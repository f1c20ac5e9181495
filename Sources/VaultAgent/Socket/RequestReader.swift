// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import NIOCore
import VaultAgentProtocol

/// Why a connection gave no request: the server then closes it unanswered.
package enum RequestReadFailure: Error {
    /// The announced length is over ``AgentFrame/maximumRequest``.
    case oversized
    /// The client closed (or the deadline closed it) before the whole frame came.
    case incomplete
}

/// Collects one request frame (a 4-byte length, then the payload) on a connection and
/// completes `payload` with it; fails it, closing the connection, when the length is over
/// the bound or the connection ends first. Bytes after the frame are ignored.
///
/// The promise is always completed once the connection is gone: a channel closed before
/// it ever became active sees no `channelInactive`, but its pipeline's teardown removes
/// this handler, which then fails the promise (the server's wait on it would otherwise
/// never end, and with it the agent's stop).
package final class RequestReader: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer

    private let promise: EventLoopPromise<[UInt8]>
    private var received: ByteBuffer?
    private var finished = false

    package init(promise: EventLoopPromise<[UInt8]>) {
        self.promise = promise
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !finished else { return }
        var incoming = unwrapInboundIn(data)
        if received == nil {
            received = incoming
        } else {
            received!.writeBuffer(&incoming)
        }
        guard let buffer = received, buffer.readableBytes >= 4,
            let header = buffer.getBytes(at: buffer.readerIndex, length: 4), let length = AgentFrame.announcedLength(header)
        else { return }
        guard length <= AgentFrame.maximumRequest else { return fail(.oversized, context) }
        guard buffer.readableBytes >= 4 + length, let payload = buffer.getBytes(at: buffer.readerIndex + 4, length: length) else { return }
        finished = true
        received = nil
        promise.succeed(payload)
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, !finished { fail(.incomplete, context) }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        if !finished {
            finished = true
            promise.fail(RequestReadFailure.incomplete)
        }
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(.incomplete, context)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        if !finished {
            finished = true
            received = nil
            promise.fail(RequestReadFailure.incomplete)
        }
    }

    private func fail(_ failure: RequestReadFailure, _ context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        received = nil
        promise.fail(failure)
        context.close(promise: nil)
    }
}
