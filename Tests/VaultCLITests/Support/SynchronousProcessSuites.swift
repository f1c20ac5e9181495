// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing

/// The suites whose tests wait for child processes synchronously. They ran one test at a
/// time, all of them together, while each such wait held a thread of the Swift concurrency
/// pool (two threads on CI): in a row they were a third of the CLI pass's time. Off the
/// pool now (`.offThePool`, like every suite), they run side by side like the others,
/// within the test process's parallel width (docs/testing.md).
@Suite(.offThePool) enum SynchronousProcessSuites {}
