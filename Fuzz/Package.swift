// swift-tools-version:6.1
import PackageDescription

/// The libFuzzer binary over vault's fuzz targets (Sources/VaultFuzzing). A package of its
/// own because only it links libFuzzer (`-sanitize=fuzzer`), whose driver runs the targets: Scripts/fuzz
/// builds it with `-Xswiftc -sanitize=fuzzer,address`.
let package = Package(
    name: "vault-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "vault", path: "..")],
    targets: [
        .executableTarget(name: "vault-fuzz", dependencies: [.product(name: "VaultFuzzing", package: "vault")])
    ],
    swiftLanguageModes: [.v6]
)
