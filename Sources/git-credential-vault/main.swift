// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

GitCredentialCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
