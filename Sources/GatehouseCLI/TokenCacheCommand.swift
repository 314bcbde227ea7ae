import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol

/// `gatehouse token-cache session`: what an app's backend does for the remote token cache, from the shell.
struct TokenCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token-cache", abstract: "Helpers for the server's remote token cache.",
        subcommands: [Session.self])

    struct Session: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Make a session key (or take one) and its proof, as an app's backend hands them to a person's devices.",
            discussion: "Prints GATEHOUSE_REMOTE_CACHE_KEY=… and GATEHOUSE_REMOTE_CACHE_PROOF=… lines for `export`.")

        @Option(help: "The app secret (env GATEHOUSE_APP_SECRET).") var secret: String?
        @Option(
            name: .customLong("session-key"),
            help: "Use this session key instead of a new random one (32-512 characters).") var sessionKey: String?

        func execute() async throws {
            guard let secret = secret ?? Environment.value("GATEHOUSE_APP_SECRET") else {
                throw fail("pass the app secret with --secret or GATEHOUSE_APP_SECRET")
            }
            var generator = SystemRandomNumberGenerator()
            let key =
                sessionKey
                ?? (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            guard TokenCacheWire.sessionKeyLength.contains(key.utf8.count) else {
                throw fail("--session-key must be 32-512 characters")
            }
            print("GATEHOUSE_REMOTE_CACHE_KEY=\(key)")
            print("GATEHOUSE_REMOTE_CACHE_PROOF=\(TokenCacheWire.sessionProof(sessionKey: key, appSecret: secret))")
        }
    }
}
