// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The vault authors; see LICENSE.

import Foundation
import VaultEtcd
import VaultStore
import VaultStoreCLI

/// The etcd backend's configuration as the command makes it: each `--etcd-…` option, else
/// its `VAULT_ETCD_…` variable, and the variables that have no option (`VAULT_ETCD_TIMEOUT`,
/// `VAULT_ETCD_LOCK_TTL`); checked by ``EtcdConfiguration``, whose problems are worded here with
/// the options. What each option and variable means, and its default: the README's "Environment
/// variables" table and docs/fleet.md, "Setting it up".
package enum EtcdSettings {
    /// Registers ``configuration(_:)`` as the etcd backend's maker (``BackendConfigurations``).
    /// A person at a terminal is told when etcd is waited for (``EtcdWaitNotice``).
    package static func register() {
        BackendConfigurations.register(.etcd) { options throws(VaultError) in try configuration(options) }
        if isatty(STDERR_FILENO) == 1 { EtcdWaitNotice.install { Terminal.note($0) } }
    }

    /// The configuration the options and variables of `options` give; `.invalidInput`
    /// (one line, naming the option or variable) for anything unusable.
    package static func configuration(_ options: StoreConfiguration) throws(VaultError) -> EtcdConfiguration {
        let variables = options.variables
        func value(_ option: String?, _ variable: String) -> String? { option ?? variables[variable] }
        let list = value(options.etcdEndpoints, "VAULT_ETCD_ENDPOINTS") ?? ""
        let endpoints = list.isEmpty ? [] : list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var insecureHTTP = options.etcdInsecureHttp
        if !insecureHTTP {
            switch variables["VAULT_ETCD_INSECURE_HTTP"] ?? "" {
            case "", "0": insecureHTTP = false
            case "1": insecureHTTP = true
            default: throw .invalidInput("VAULT_ETCD_INSECURE_HTTP must be 1 (allow http:// to other machines) or 0")
            }
        }
        let timeout = try seconds(variables["VAULT_ETCD_TIMEOUT"], name: "VAULT_ETCD_TIMEOUT", default: 10, range: 0.5...600)
        let lockTTL = try wholeSeconds(variables["VAULT_ETCD_LOCK_TTL"], name: "VAULT_ETCD_LOCK_TTL", default: 5, range: 2...60)
        let configuration: EtcdConfiguration
        do throws(EtcdConfiguration.Problem) {
            configuration = try EtcdConfiguration(
                endpoints: endpoints, prefix: value(options.etcdPrefix, "VAULT_ETCD_PREFIX"),
                caFile: value(options.etcdCacert, "VAULT_ETCD_CACERT"), certificateFile: value(options.etcdCert, "VAULT_ETCD_CERT"),
                keyFile: value(options.etcdKey, "VAULT_ETCD_KEY"), user: value(options.etcdUser, "VAULT_ETCD_USER"),
                passwordFile: value(options.etcdPasswordFile, "VAULT_ETCD_PASSWORD_FILE"),
                timeout: timeout, lockTTL: lockTTL, insecureHTTP: insecureHTTP)
        } catch {
            throw .invalidInput(worded(error))
        }
        return configuration
    }

    /// `problem` in the command's words: the option (and variable) to change.
    package static func worded(_ problem: EtcdConfiguration.Problem) -> String {
        switch problem {
        case .noEndpoints: "the etcd backend needs --etcd-endpoints URL,URL,... (or VAULT_ETCD_ENDPOINTS)"
        case .tooManyEndpoints: "--etcd-endpoints: at most \(EtcdConfiguration.maximumEndpoints) endpoints"
        case .badEndpoint(let endpoint, let fault):
            "--etcd-endpoints: \(endpoint.map(UsageMessage.shown) ?? "an endpoint with user info (use --etcd-user and --etcd-password-file)") "
                + (fault == .noUsablePort ? "has no usable port (1 to 65535)" : "is not an etcd client URL (http:// or https://host:port, no path)")
        case .certificateWithoutKey: "--etcd-cert and --etcd-key go together (a client certificate and its private key)"
        case .tlsFilesWithPlainHTTP(let endpoint):
            "--etcd-cacert, --etcd-cert and --etcd-key are for https:// endpoints, and \(UsageMessage.shown(endpoint)) is http://: use https://"
        case .plainHTTPToAnotherMachine(let endpoint):
            "--etcd-endpoints: \(UsageMessage.shown(endpoint)) is plain HTTP to another machine: the etcd password, its token and "
                + "the fleet's items would cross the network in clear text; use https:// (see docs/fleet.md), "
                + "or allow it with --etcd-insecure-http (VAULT_ETCD_INSECURE_HTTP=1)"
        case .userWithoutPasswordFile: "--etcd-user and --etcd-password-file go together (the password is never an argument)"
        case .badPrefix: "--etcd-prefix must start with / (at most 256 bytes, no control characters), like /vault/"
        }
    }

    private static func seconds(
        _ raw: String?, name: String, default fallback: Double, range: ClosedRange<Double>
    ) throws(VaultError) -> Duration {
        guard let raw, !raw.isEmpty else { return .milliseconds(Int(fallback * 1000)) }
        guard let value = Double(raw), value.isFinite, range.contains(value) else {
            throw .invalidInput("\(name) must be a number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return .milliseconds(Int(value * 1000))
    }

    private static func wholeSeconds(
        _ raw: String?, name: String, default fallback: Int, range: ClosedRange<Int>
    ) throws(VaultError) -> Int {
        guard let raw, !raw.isEmpty else { return fallback }
        guard let value = Int(raw), range.contains(value) else {
            throw .invalidInput("\(name) must be a whole number of seconds from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
