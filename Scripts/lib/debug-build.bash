# Scripts/lib/debug-build.bash: the one command line of every debug build the scripts make
# (sourced, not run). SwiftPM rebuilds every module whose command line changed, so a
# script that built .build with other flags than the last one would build it all again:
# every script that builds in debug (.ci/run, Scripts/test, Scripts/demo, Scripts/soak,
# Scripts/fuzz, ...) uses `"${debug_build[@]}"` instead of `swift build`.
#
#   --disable-index-store   no index for editors (an editor's SourceKit-LSP keeps its own):
#                           it cost a fifth of the compilers' time (issue 36; NIOCore 58 s
#                           of CPU with it, 48 s without; BoringSSL's C++ 47 s and 41 s)
#   -gline-tables-only      Swift debug info of files and lines only: backtraces and
#                           sanitizer reports keep them; objects are half the size, so the
#                           test binary links faster. A debugger that must show variables
#                           wants a build of one's own (`swift build`, into .build too).
debug_build=(swift build --disable-index-store -Xswiftc -gline-tables-only)
