// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

// libFuzzer's entry points over one of vault's fuzz targets, chosen by VAULT_FUZZ_TARGET
// (Scripts/fuzz sets it). Built with -parse-as-library: libFuzzer supplies main.
import Glibc
import VaultFuzzing

nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    guard let name = getenv("VAULT_FUZZ_TARGET").map({ String(cString: $0) }), let target = FuzzTargets.named(name) else {
        let names = FuzzTargets.all.map(\.name).joined(separator: " ")
        fputs("vault-fuzz: set VAULT_FUZZ_TARGET to one of: \(names)\n", stderr)
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(bytes)
    } catch {
        // A broken invariant is a finding: abort so libFuzzer keeps the input as a crash.
        fputs("vault-fuzz: \(target.name): invariant broken: \(error)\n", stderr)
        abort()
    }
    return 0
}
