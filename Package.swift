// swift-tools-version:6.1
import PackageDescription

/// vault: credentials kept safe, programs kept logged in.
///
/// Every module shares state under VaultSync's lock (a leaf). Import direction: VaultCLI -> VaultStoreCLI -> VaultStore -> CLibSecret,
/// VaultCLI -> VaultAuth -> VaultStore, and VaultCLI -> VaultEtcd -> VaultStore (the fleet
/// backend, with its refresh lock: a leaf of VaultStore, like the other backends), and
/// VaultCLI -> VaultSecretService -> VaultStore + CGio (the Secret Service provider). Two
/// executables: `vault` (VaultStoreCLI: the store commands, without networking, so it
/// starts like `secret-tool`) runs `vault-auth` (VaultCLI: every command, the sign-in ones
/// among them) for the commands it does not have.
/// AuthServer (the reference auth API) depends on none of the client modules.
/// git-credential-vault (its command, with VaultStoreCLI's store options) -> GitCredential (git's
/// credential helper protocol) -> VaultStore.
/// VaultTesting (the contracts and fakes other tools' tests may use too) -> VaultAuth and
/// VaultStore, never the reference server: that stays in the tests' own VaultTestSupport.
let package = Package(
    name: "vault",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "VaultStore", targets: ["VaultStore"]),
        .library(name: "VaultAuth", targets: ["VaultAuth", "VaultHTTPClient"]),
        .library(name: "VaultTesting", targets: ["VaultTesting"]),
        // The fuzz targets, for the Fuzz package's libFuzzer binary (Scripts/fuzz).
        .library(name: "VaultFuzzing", targets: ["VaultFuzzing"]),
        .executable(name: "vault", targets: ["vault"]),
        .executable(name: "vault-auth", targets: ["vault-auth"]),
        .executable(name: "git-credential-vault", targets: ["git-credential-vault"]),
        .executable(name: "vault-auth-server", targets: ["vault-auth-server"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // One trait, named: SwiftPM 6.3 writes the -D flags of several enabled traits in a
        // new order at each build plan (swiftlang/swift-package-manager#10525, fixed in 6.4),
        // and each new order rebuilt Hummingbird and all above it (50 s of a fresh clone's
        // CI). vault uses no ConfigReader (the ConfigurationSupport trait).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // System library: libsecret-1 (and glib) from Debian's -dev packages.
        .systemLibrary(
            name: "CLibSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev", "libglib2.0-dev"])]
        ),
        // The kernel's key retention service (keyrings(7)), for the file backend's key cache.
        .target(name: "CLinuxKeyring"),
        // Linux calls Swift cannot make itself: prctl, fgetxattr, close_range, and the
        // sock_diag lookup of a loopback connection's owner.
        .target(name: "CLinuxSystem"),
        // The lock every module shares state under: a pthread mutex, which ThreadSanitizer sees.
        .target(name: "VaultSync"),
        .target(
            name: "VaultStore",
            dependencies: [
                "VaultSync",
                "CLibSecret",
                "CLinuxKeyring",
                "CLinuxSystem",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The agent's wire format and its blocking client: no Foundation, no event loop, so the
        // short-lived `vault` asks the agent at the cost of one socket round trip.
        .target(name: "VaultAgentProtocol"),
        .target(
            name: "VaultAuth",
            dependencies: [
                "VaultSync",
                "VaultStore",
                "CLinuxSystem",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // VaultAuth's `HTTPTransport` on AsyncHTTPClient (and swift-nio-ssl): a module of its
        // own, so that VaultAuth's parsers and policy build without a TLS stack (the fuzz build).
        .target(
            name: "VaultHTTPClient",
            dependencies: [
                "VaultSync", "VaultStore", "VaultAuth",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // What vault reads and writes in etcd: the v3 gateway's JSON and the fleet's sealed
        // records. No networking, so the fuzz build needs no HTTP client.
        .target(
            name: "VaultEtcdFormat",
            dependencies: ["VaultStore", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The fleet backend: etcd's v3 JSON gateway, end-to-end encrypted items, the fleet-wide
        // refresh lock. Its own module, so the `vault` executable carries no networking.
        .target(
            name: "VaultEtcd",
            dependencies: [
                "VaultSync",
                "VaultStore", "VaultEtcdFormat",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The store commands and what every command shares; no networking, no Foundation.
        .target(
            name: "VaultStoreCLI",
            dependencies: [
                "VaultSync", "VaultStore", "VaultAgentProtocol", "CLinuxSystem", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `vault agent`: the socket server, the accounts it keeps alive, token files.
        .target(
            name: "VaultAgent",
            dependencies: [
                "VaultSync",
                "VaultAgentProtocol", "VaultAuth", "VaultStore", "CLinuxSystem",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // GMP (Debian's libgmp-dev): the DH session's side-channel-silent mpn_sec_powm.
        .systemLibrary(name: "CGMP", pkgConfig: "gmp", providers: [.apt(["libgmp-dev"])]),
        // GDBus from GIO (Debian's libglib2.0-dev), for the Secret Service provider.
        .systemLibrary(name: "CGio", pkgConfig: "gio-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // `vault agent --secret-service`: org.freedesktop.secrets served from the vault's contents.
        .target(
            name: "VaultSecretService",
            dependencies: [
                "VaultSync",
                "CGio", "CGMP", "VaultStore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Every command: the store commands and the sign-in ones (login, token, request...).
        .target(
            name: "VaultCLI",
            dependencies: [
                "VaultSync",
                "VaultStore",
                "VaultStoreCLI",
                "VaultAuth",
                "VaultHTTPClient",
                "VaultAgent",
                "VaultAgentProtocol",
                "VaultEtcd",
                "VaultSecretService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // vault.order: the link order of its functions (Scripts/build-release, Scripts/generate-order-file).
        .executableTarget(name: "vault", dependencies: ["VaultStoreCLI"], exclude: ["vault.order"]),
        // vault-auth.order: the link order of the agent's functions (Scripts/generate-order-file --agent).
        .executableTarget(name: "vault-auth", dependencies: ["VaultCLI"], exclude: ["vault-auth.order"]),
        // git's credential helper protocol over a store. Its command, with the store commands'
        // options, is the executable's: the fuzz build then compiles no command-line parser.
        .target(name: "GitCredential", dependencies: ["VaultStore"]),
        .executableTarget(
            name: "git-credential-vault",
            dependencies: [
                "GitCredential", "VaultStore", "VaultStoreCLI", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "AuthServer",
            dependencies: [
                "VaultSync",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "vault-auth-server",
            dependencies: [
                "AuthServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "VaultBench",
            dependencies: [
                "VaultStore", "VaultAuth", "VaultHTTPClient", "VaultEtcd", "AuthServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Every parser of bytes that others control, with its invariant, as fuzz targets: run
        // by libFuzzer (Fuzz/, Scripts/fuzz) and replayed over their corpora by VaultFuzzingTests.
        .target(
            name: "VaultFuzzing",
            dependencies: [
                "VaultSync",
                "VaultStore", "VaultAuth", "VaultEtcdFormat", "VaultAgentProtocol", "GitCredential", "VaultSecretService", "CGMP",
                "CGio", .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // For tests, vault's and other tools': the SecureStore and AccountLocking contracts,
        // a manual clock, fake transport, provider and key cache, a store that fails on cue.
        .target(
            name: "VaultTesting",
            dependencies: ["VaultSync", "VaultStore", "VaultAuth", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // What the test targets share (temporary directories, child processes, the
        // in-process reference server, the test environment); test targets only.
        .target(
            name: "VaultTestSupport", dependencies: ["VaultSync", "VaultStore", "AuthServer", .product(name: "Logging", package: "swift-log")],
            path: "Tests/VaultTestSupport"),
        .testTarget(
            name: "VaultStoreTests", dependencies: ["VaultSync", "VaultStore", "VaultTesting", "VaultTestSupport", "CLibSecret"], exclude: ["Vectors"]
        ),
        .testTarget(
            name: "VaultCLITests",
            dependencies: [
                "VaultSync",
                "VaultStore", "VaultAuth", "VaultStoreCLI", "VaultCLI", "VaultAgentProtocol", "AuthServer", "VaultTestSupport", "vault",
                "vault-auth", "vault-auth-server", "VaultEtcd", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "VaultEtcdTests",
            dependencies: ["VaultSync", "VaultEtcd", "VaultEtcdFormat", "VaultStore", "VaultTesting", "VaultTestSupport"]),
        .testTarget(
            name: "VaultAuthTests",
            dependencies: [
                "VaultSync",
                "VaultAuth", "VaultHTTPClient", "AuthServer", "VaultTesting", "VaultTestSupport", "VaultStore",
                .product(name: "JWTKit", package: "jwt-kit"), .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "VaultAgentTests",
            dependencies: [
                "VaultSync",
                "VaultAgent", "VaultAgentProtocol", "VaultAuth", "VaultHTTPClient", "VaultStore", "AuthServer", "VaultTesting", "VaultTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        .testTarget(
            name: "VaultSecretServiceTests",
            dependencies: [
                "VaultSync",
                "VaultSecretService", "VaultStore", "VaultTesting", "VaultTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "VaultFuzzingTests",
            dependencies: [
                "VaultFuzzing", "VaultEtcdFormat", "VaultTestSupport", "VaultAuth", "VaultStore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]),
        .testTarget(
            name: "AuthServerTests",
            dependencies: [
                "AuthServer", "VaultTestSupport", .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Crypto", package: "swift-crypto"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
