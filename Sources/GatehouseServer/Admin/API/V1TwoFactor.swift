import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird

/// `/people/{id}/two_factor` (issue 32): give a person (usually a test user) a second factor, read whether they
/// have one (and, in development mode, the code the checkpoint accepts now), or take it away.
struct V1TwoFactor: Sendable {
    let services: GatehouseServices

    var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/people/{id}/two_factor") { call in
                let person = try await V1People(services: services).find(call.parameter("id"))
                var out: JSONObject = ["enabled": .bool(try await services.accounts.hasTwoFactor(person))]
                if let code = try await services.accounts.developmentLoginCode(for: person) {
                    out["current_code"] = .string(code)
                }
                return AdminAPIv1.reply(.object(out))
            },
            V1Route(method: .put, path: "/people/{id}/two_factor") { call in
                var body = try call.body()
                let person = try await V1People(services: services).find(call.parameter("id"))
                let secret = try body.string("secret", max: 200)
                try body.finish()
                let enabled: AccountService.TwoFactorEnabled
                do {
                    enabled = try await services.accounts.enableTwoFactor(for: person, secret: secret)
                } catch let error as AccountError {
                    throw Problem.validation("secret", error.description)
                }
                return AdminAPIv1.reply(
                    .object([
                        "enabled": .bool(true), "secret": .string(enabled.secret),
                        "otpauth_uri": .string(enabled.provisioningURI),
                        "recovery_codes": .array(enabled.recoveryCodes.map(JSONValue.string)),
                    ]))
            },
            V1Route(method: .delete, path: "/people/{id}/two_factor") { call in
                let person = try await V1People(services: services).find(call.parameter("id"))
                try await services.accounts.disableTwoFactor(for: person)
                return AdminAPIv1.reply(nil)
            },
        ]
    }
}
