import ArgumentParser
import VaultAuth
import VaultStore

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a valid access token, refreshing it (or logging in again) first if needed.",
        discussion: """
            The token goes to standard output only, so it never appears in a process list. \
            To hand it to curl without putting it in curl's arguments (readable in /proc), \
            let curl read the header from standard input:

              vault token --server URL --account A | sed 's/^/Authorization: Bearer /' | curl -H @- URL
            """)

    @OptionGroup var auth: AuthOptions
    @OptionGroup var store: StoreOptions

    func run() async throws {
        try await reportingAuthErrors { () async throws(AuthError) in
            let verbose = store.verbose
            let token = try await auth.withSession(store) { session throws(AuthError) in
                try await session.requester(onEvent: { EventReport.note($0, verbose: verbose) }).accessToken()
            }
            Terminal.write(token.bytes + [0x0A])
        }
    }
}

/// One readable line per Requester event, on stderr: with `--verbose` every event,
/// else only warnings (tokens that could not be stored).
enum EventReport {
    static func note(_ event: RequesterEvent, verbose: Bool) {
        if case .tokensNotSaved = event {} else if !verbose { return }
        switch event {
        case .usedToken: Terminal.note("used the stored access token")
        case .refreshed: Terminal.note("refreshed the access token")
        case .adoptedStoredTokens: Terminal.note("took the tokens another process had just refreshed")
        case .loggedInAgain: Terminal.note("the refresh token was dead: logged in again with the stored password")
        case .replayedAfter401: Terminal.note("got 401: replayed the request once with a new token")
        case .tokensNotSaved(let why): Terminal.note("warning: the new tokens could not be stored (\(why)); used them anyway")
        case .followedRedirect: Terminal.note("followed a redirect within the server's origin")
        case .followedRedirectWithoutToken: Terminal.note("followed a redirect to another origin, without the token")
        }
    }
}
