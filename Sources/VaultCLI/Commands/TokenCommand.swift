import ArgumentParser
import VaultAuth
import VaultStore

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a valid access token, refreshing it (or logging in again) first if needed.",
        discussion: "For scripts: curl -H \"Authorization: Bearer $(vault token --server URL --account A)\" ...")

    @OptionGroup var auth: AuthOptions
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            let verbose = store.verbose
            let token = try await auth.withSession(store) { session throws(AuthError) in
                try await session.requester(onEvent: { if verbose { EventReport.note($0) } }).accessToken()
            }
            Terminal.write(token.bytes + [0x0A])
        }
    }
}

/// One readable line per Requester event, on stderr (`--verbose`).
enum EventReport {
    static func note(_ event: RequesterEvent) {
        switch event {
        case .usedToken: Terminal.note("used the stored access token")
        case .refreshed: Terminal.note("refreshed the access token")
        case .adoptedStoredTokens: Terminal.note("took the tokens another process had just refreshed")
        case .loggedInAgain: Terminal.note("the refresh token was dead: logged in again with the stored password")
        case .replayedAfter401: Terminal.note("got 401: replayed the request once with a new token")
        }
    }
}
