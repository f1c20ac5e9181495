// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Logging
import NIOCore
import NIOPosix
import Synchronization
import VaultAgentProtocol
import VaultSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The agent's Unix-domain stream listener, on SwiftNIO's event loops: one request and one
/// answer per connection (``AgentFrame``), for clients of this uid only.
///
/// Each connection: the peer's uid is read (`SO_PEERCRED`) before any byte, and another
/// uid's connection is closed unread (logged once per uid); then one frame, whole within
/// ``Limits/requestDeadline`` of the accept and at most ``AgentFrame/maximumRequest`` bytes,
/// else the connection is closed; a malformed request is closed unanswered; the answer of
/// ``AgentServing`` is awaited at most ``Limits/answerDeadline`` (then the client is told
/// the agent took too long), written, and the connection closed. Past
/// ``Limits/maximumConnections`` open connections a new one is closed at once. No client
/// waits on another: nothing blocks an event loop.
public final class AgentSocketServer: Sendable {
    /// Where the server listens.
    public enum Listener: Sendable, Equatable {
        /// A socket the server binds at this path (0600 from birth: bound under umask 077).
        /// Its directory must be ready (``AgentSocketPlace/prepare(_:)``).
        case path(String)
        /// A listening socket passed in (systemd's socket activation, ``SocketActivation``).
        case activated(descriptor: Int32)
    }

    /// The server's bounds.
    public struct Limits: Sendable {
        /// Open connections beyond which a new one is closed at once.
        public var maximumConnections: Int
        /// The whole request must arrive within this of the accept.
        public var requestDeadline: Duration
        /// The longest wait for the agent's answer.
        public var answerDeadline: Duration
        /// The longest a client may take to take the answer.
        public var writeDeadline: Duration
        /// At shutdown, how long answers under way may take before their connections close.
        public var drainDeadline: Duration

        public init(
            maximumConnections: Int = 1024, requestDeadline: Duration = .seconds(5), answerDeadline: Duration = .seconds(10),
            writeDeadline: Duration = .seconds(5), drainDeadline: Duration = .seconds(5)
        ) {
            self.maximumConnections = maximumConnections
            self.requestDeadline = requestDeadline
            self.answerDeadline = answerDeadline
            self.writeDeadline = writeDeadline
            self.drainDeadline = drainDeadline
        }
    }

    /// The reason answered when the agent does not answer within ``Limits/answerDeadline``.
    public static let tooLongReason = "the agent took too long"

    /// What the accept side hands the serving side: a connection to serve with the future of
    /// its request's payload, or one already closed.
    enum Accepted: Sendable {
        case refused
        case connection(any Channel, request: EventLoopFuture<[UInt8]>)
    }

    private let server: NIOAsyncChannel<Accepted, Never>
    private let serving: any AgentServing
    private let registry: ConnectionRegistry
    private let limits: Limits
    private let logger: Logger
    /// Where the server listens (the path it bound, or the activated descriptor).
    public let listener: Listener
    /// The socket file this server bound (nil for an activated socket): the owner removes
    /// it with ``BoundSocketFile/remove()`` once ``listenerClosed()`` returns; nothing else
    /// does.
    public let boundFile: BoundSocketFile?

    /// The listen(2) backlog of a socket bound at a path.
    static let backlog: Int32 = 1024

    private init(
        server: NIOAsyncChannel<Accepted, Never>, serving: any AgentServing, registry: ConnectionRegistry, limits: Limits, logger: Logger,
        listener: Listener, boundFile: BoundSocketFile?
    ) {
        self.boundFile = boundFile
        self.server = server
        self.serving = serving
        self.registry = registry
        self.limits = limits
        self.logger = logger
        self.listener = listener
    }

    /// Listens on `listener` (accepting starts at once; ``run()`` serves). Raises the soft
    /// limit on open descriptors to the hard one.
    public static func bind(
        _ listener: Listener, serving: any AgentServing, limits: Limits = Limits(), logger: Logger
    ) async throws(AgentSocketError) -> AgentSocketServer {
        // Each connection is a descriptor: the bound stays under the limit, with room for
        // the store, the HTTP client and the logs.
        let descriptors = Int(clamping: OpenFileLimit.raise())
        let room = descriptors > 0 ? max(16, descriptors - 64) : limits.maximumConnections
        let registry = ConnectionRegistry(maximum: max(1, min(limits.maximumConnections, room)))
        let initializer = childInitializer(registry: registry, limits: limits, logger: logger)
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: backlog)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let server: NIOAsyncChannel<Accepted, Never>
        var boundFile: BoundSocketFile?
        switch listener {
        case .path(let path):
            // Bound here, not by NIO, which would unlink the path by path at close
            // (``BoundSocketFile``); NIO's own listen(2) asks for a backlog of 128, so the
            // backlog is set again once it has the descriptor.
            let (descriptor, file) = try BoundSocketFile.listening(at: path, backlog: backlog).get()
            do {
                server = try await bootstrap.bind(descriptor, childChannelInitializer: initializer)
            } catch {
                close(descriptor)
                file.remove()
                throw .system(path, call: "listen", reason: "\(error)")
            }
            _ = listen(descriptor, backlog)
            boundFile = file
        case .activated(let descriptor):
            do {
                server = try await bootstrap.bind(descriptor, childChannelInitializer: initializer)
            } catch {
                throw .system("descriptor \(descriptor)", call: "listen", reason: "\(error)")
            }
        }
        return AgentSocketServer(
            server: server, serving: serving, registry: registry, limits: limits, logger: logger, listener: listener, boundFile: boundFile)
    }

    /// How each accepted connection starts, on its event loop: the uid check before any
    /// read, the connection bound, the request reader and its deadline.
    private static func childInitializer(
        registry: ConnectionRegistry, limits: Limits, logger: Logger
    ) -> @Sendable (any Channel) -> EventLoopFuture<Accepted> {
        { channel in
            let loop = channel.eventLoop
            guard let provider = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                return loop.makeSucceededFuture(.refused)
            }
            let credentials: EventLoopFuture<(Int32, UInt32, UInt32)> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            return credentials.flatMapThrowing { (credentials: (Int32, UInt32, UInt32)) throws -> Accepted in
                let uid = credentials.1
                guard uid == getuid() else {
                    if registry.firstRefusal(of: uid) {
                        logger.warning("refused a connection from uid \(uid): the agent serves uid \(getuid()) only")
                    }
                    channel.close(promise: nil)
                    return .refused
                }
                let admission = registry.admit(channel)
                guard admission.admitted else {
                    if admission.overLimitFirst {
                        logger.warning("\(registry.maximum) connections are open: new ones are closed until some end")
                    }
                    channel.close(promise: nil)
                    return .refused
                }
                // Counted until it closes, however it ends (served, refused below, or
                // dropped unserved when the server stops).
                channel.closeFuture.whenComplete { _ in registry.remove(channel) }
                let promise = loop.makePromise(of: [UInt8].self)
                try channel.pipeline.syncOperations.addHandler(RequestReader(promise: promise))
                let deadline = loop.scheduleTask(in: TimeAmount(limits.requestDeadline)) { channel.close(promise: nil) }
                promise.futureResult.whenComplete { _ in deadline.cancel() }
                return .connection(channel, request: promise.futureResult)
            }.flatMapErrorThrowing { _ in
                channel.close(promise: nil)
                return .refused
            }
        }
    }

    /// Serves until ``stop()``: then accepts no more, lets answers under way finish (at
    /// most ``Limits/drainDeadline``, then closes what is still open) and returns.
    public func run() async {
        var drainTimer: Task<Void, Never>?
        do {
            try await server.executeThenClose { inbound in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await accepted in inbound {
                            guard case .connection(let channel, let request) = accepted else { continue }
                            group.addTask { await self.serve(channel, request: request) }
                        }
                    } catch {
                        logger.error("the listening socket failed: \(error)")
                    }
                    let registry = registry
                    let drain = limits.drainDeadline
                    drainTimer = Task {
                        try? await Task.sleep(for: drain)
                        if !Task.isCancelled { registry.closeAll() }
                    }
                }
            }
        } catch {
            logger.error("the listening socket failed: \(error)")
        }
        drainTimer?.cancel()
    }

    /// Stops accepting connections; ``run()`` returns once those open are done. The socket
    /// file stays: its owner removes it (``boundFile``) after ``listenerClosed()``.
    public func stop() {
        server.channel.close(promise: nil)
    }

    /// Returns once the listening socket is closed (after ``stop()``, or when it failed).
    public func listenerClosed() async {
        try? await server.channel.closeFuture.get()
    }

    /// The number of connections open now.
    public var openConnections: Int { registry.count }

    /// One connection: its request, the answer, the close.
    private func serve(_ channel: any Channel, request: EventLoopFuture<[UInt8]>) async {
        defer { registry.remove(channel) }
        guard let payload = try? await request.get(), let decoded = AgentRequest.decode(payload) else {
            try? await channel.close()
            return
        }
        let answer = await answer(decoded, closing: channel)
        let writeBound = channel.eventLoop.scheduleTask(in: TimeAmount(limits.writeDeadline)) { channel.close(promise: nil) }
        try? await channel.writeAndFlush(ByteBuffer(bytes: AgentFrame.framed(answer.encoded())))
        writeBound.cancel()
        try? await channel.close()
    }

    /// The agent's answer, or ``tooLongReason`` past ``Limits/answerDeadline``, or a
    /// decline when the connection closes first (the answer is then dropped).
    private func answer(_ request: AgentRequest, closing channel: any Channel) async -> AgentAnswer {
        let serving = serving
        let deadline = limits.answerDeadline
        return await withCheckedContinuation { (continuation: CheckedContinuation<AgentAnswer, Never>) in
            let once = Once()
            let resume: @Sendable (AgentAnswer) -> Bool = { answer in
                guard once.claim() else { return false }
                continuation.resume(returning: answer)
                return true
            }
            // Cancelled at every answer: a timer, not a sleeping task (``OneShotTimer``).
            let timer = OneShotTimer(after: deadline) { _ = resume(.declined(reason: Self.tooLongReason)) }
            Task {
                let answer = await serving.answer(request)
                if resume(answer) { timer.cancel() }
            }
            channel.closeFuture.whenComplete { _ in
                if resume(.declined(reason: "the client left")) { timer.cancel() }
            }
        }
    }
}

extension TimeAmount {
    /// `duration` in nanoseconds (saturating).
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue + attoseconds / 1_000_000_000)
    }
}

/// True for the first caller of ``claim()`` only.
private final class Once: Sendable {
    private let taken = Atomic(false)

    func claim() -> Bool {
        !taken.exchange(true, ordering: .acquiringAndReleasing)
    }
}
