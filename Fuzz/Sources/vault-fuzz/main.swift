// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

// libFuzzer over one of vault's fuzz targets, chosen by VAULT_FUZZ_TARGET (Scripts/fuzz sets
// it); VAULT_FUZZ_LIST=1 prints the targets' names. Built with -sanitize=fuzzer,address.
// SwiftPM links an executable's own main (it renames it and points `main` at it), so this
// main hands the command line to libFuzzer's driver (LLVMFuzzerRunDriver) rather than
// relying on libFuzzer's main.
import Glibc
import VaultFuzzing

/// libFuzzer's driver: parses its flags from the command line and calls `callback` per input.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// One line on standard error, "vault-fuzz: " first.
func report(_ line: String) {
    let bytes = Array("vault-fuzz: \(line)\n".utf8)
    _ = bytes.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
}

let names = FuzzTargets.all.map(\.name).joined(separator: " ")
if getenv("VAULT_FUZZ_LIST") != nil {
    report("targets: \(names)")
    exit(0)
}
guard let name = getenv("VAULT_FUZZ_TARGET").map({ String(cString: $0) }), let chosen = FuzzTargets.named(name) else {
    report("set VAULT_FUZZ_TARGET to one of: \(names)")
    exit(2)
}
let target = chosen

/// One input: the chosen target's check; a broken invariant aborts, so libFuzzer keeps the
/// input as a crash. Exported under libFuzzer's name too, which its archive's main needs.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(bytes)
    } catch {
        report("\(target.name): invariant broken: \(error)")
        abort()
    }
    return 0
}

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, fuzzOneInput))
