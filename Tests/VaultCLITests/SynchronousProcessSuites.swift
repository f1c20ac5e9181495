// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Testing

/// The suites whose tests wait for child processes synchronously. Each such wait holds a
/// thread of the Swift concurrency pool, which has one thread per core (two on CI), and
/// the in-process auth servers of the other suites need those threads. So these suites
/// run one test at a time, all of them together: at most one pool thread is ever held.
@Suite(.serialized, .offThePool) enum SynchronousProcessSuites {}
