import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseProtocol

/// `gatehouse signed-request parse|make`: what an app's backend does with the `signed_request` Gatehouse
/// POSTs to its deauthorize and data-deletion URLs.
struct SignedRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signed-request", abstract: "Verify and decode, or create, a signed_request.",
        subcommands: [Parse.self, Make.self])

    struct Parse: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a signed_request with the app secret and print its payload.",
            discussion: "Exit status: 0 valid, 1 rejected (malformed, bad signature, wrong algorithm, too old).")

        @Option(help: "The app secret (env GATEHOUSE_APP_SECRET).") var secret: String?
        @Option(name: .customLong("max-age"), help: "Reject a request whose issued_at is older than this many seconds.")
        var maxAge: Int?
        @Argument(help: "The signed_request value (or - to read it from standard input).") var signedRequest: String

        func execute() async throws {
            guard let secret = secret ?? Environment.value("GATEHOUSE_APP_SECRET") else {
                throw fail("pass the app secret with --secret or GATEHOUSE_APP_SECRET")
            }
            var value = signedRequest
            if value == "-" { value = (readLine(strippingNewline: true) ?? "").trimmingCharacters(in: .whitespaces) }
            do {
                let payload = try SignedRequest.parse(value, secret: secret, maxAge: maxAge.map(TimeInterval.init))
                print(payload.serialized())
            } catch {
                throw fail("signed_request rejected: \(Self.describe(error))")
            }
        }

        static func describe(_ error: SignedRequestError) -> String {
            switch error {
            case .malformed: "it is not base64url(signature).base64url(JSON payload)"
            case .badSignature: "the signature does not match (wrong app secret, or the payload was changed)"
            case .unsupportedAlgorithm: "the algorithm is not HMAC-SHA256"
            case .expired: "issued_at is missing or older than --max-age"
            }
        }
    }

    struct Make: AsyncParsableCommand, ExecutableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a payload as Gatehouse does (for testing an app's callback endpoint).")

        @Option(help: "The app secret (env GATEHOUSE_APP_SECRET).") var secret: String?
        @Option(name: .customLong("user-id"), help: "The app-scoped user id.") var userID: String
        @Option(name: .customLong("issued-at"), help: "Unix time (default now).") var issuedAt: Int?

        func execute() async throws {
            guard let secret = secret ?? Environment.value("GATEHOUSE_APP_SECRET") else {
                throw fail("pass the app secret with --secret or GATEHOUSE_APP_SECRET")
            }
            let payload: JSONObject = [
                "algorithm": "HMAC-SHA256", "issued_at": .int(Int64(issuedAt ?? Int(Date().timeIntervalSince1970))),
                "user_id": .string(userID),
            ]
            print(SignedRequest.make(payload: payload, secret: secret))
        }
    }
}
