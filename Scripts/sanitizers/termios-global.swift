// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.
//
// Why TerminalRestore keeps its saved `termios` on the heap (Sources/VaultStoreCLI/
// TerminalPrompt.swift). Swift 6.3.1 on Linux gives a global of the imported C struct
// `termios` a symbol of 57 bytes (`nm -S`: its fields without the 3 bytes of padding before
// `c_ispeed`), while `MemoryLayout<termios>.size` is 60 and an assignment copies 60. Under
// AddressSanitizer the assignment is a global-buffer-overflow of 3 bytes; in a plain build
// they land in whatever the linker put after the symbol.
//
//   swiftc -sanitize=address -parse-as-library -g Scripts/sanitizers/termios-global.swift -o /tmp/termios-global
//   /tmp/termios-global            # global-buffer-overflow: a 60-byte write into a 57-byte global
//   swiftc -parse-as-library Scripts/sanitizers/termios-global.swift -o /tmp/termios-plain
//   nm -S /tmp/termios-plain | grep 5saved.*termiosVvpZ   # size 0x39

#if canImport(Glibc)
    import Glibc
#endif

enum Saved {
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var next: Int32 = -1
}

@main struct TermiosGlobal {
    static func main() {
        var settings = termios()
        settings.c_ospeed = 9600
        Saved.saved = settings
        print(MemoryLayout<termios>.size, Saved.saved.c_ospeed, Saved.next)
    }
}
