import ChildProcesses
import Foundation
import GatehouseTestSupport
import Testing

/// Issue 41, item 6: the admin document is exact. schemathesis (from PyPI), an outside tool, runs every check it has
/// (`--checks all`) over every operation of the served OpenAPI document against a production `gatehouse serve`
/// with a write token, with a fixed seed and a bounded number of examples per operation: no 5xx; every answer's
/// status, content type, headers and body as documented; every schema-valid request accepted and every
/// schema-violating one refused; every operation refusing a request without the token; 405 with `Allow` for a
/// method a path does not have; and, in the stateful phase, resources gone after a delete and present after a create.
///
/// What is left out is named below with its reason, and each rule behind an exclusion is written in the operation's
/// description in `admin-v1.yaml`.
@Suite(.serialized, .tags(.process)) struct AdminAPIContractTests {
    /// One operation's check told to expect one more status, because the server's rule cannot be written in OpenAPI.
    struct Exclusion {
        var operationID: String
        var check: String
        var alsoExpected: [String]
        var reason: String
    }

    /// The operation the run leaves out, and why.
    static let leftOut = (
        operationID: "revokeAdminToken",
        reason: "revoking the run's own admin token would end its credentials part-way; AdminTokenAuthTests covers it"
    )

    /// `positive_data_acceptance` expects these for a schema-valid request (schemathesis' defaults).
    static let acceptedStatuses = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]

    /// Rules no schema can state: each answers 400 for some schema-valid requests, and says so in its description.
    static let exclusions = [
        Exclusion(
            operationID: "mintCode", check: "positive_data_acceptance", alsoExpected: ["400"],
            reason: "redirect_uri must be one of the app's registered redirect URIs, and an app that requires PKCE "
                + "needs a code_challenge: both depend on the app's stored settings"),
        Exclusion(
            operationID: "putGrant", check: "positive_data_acceptance", alsoExpected: ["400"],
            reason: "a permission cannot be both granted and declined: no schema says two arrays do not overlap"),
        Exclusion(
            operationID: "befriend", check: "positive_data_acceptance", alsoExpected: ["400"],
            reason: "a person cannot befriend themselves: no schema says two path parameters differ"),
        Exclusion(
            operationID: "applyScenario", check: "positive_data_acceptance", alsoExpected: ["400"],
            reason: "the scenario's YAML has its own rules (docs/SCENARIOS.md), which the document does not restate"),
        Exclusion(
            operationID: "resetState", check: "positive_data_acceptance", alsoExpected: ["400"],
            reason: "a reset to a scenario carries the scenario's YAML, whose rules the document does not restate"),
        Exclusion(
            operationID: "importState", check: "positive_data_acceptance", alsoExpected: ["400"],
            reason: "an export's records have their own fields and name each other (a grant's app and person are in "
                + "the export); the document writes the export's top level only"),
    ]

    /// Query parameters held at one value, and why: a long poll would hold each generated request for up to its
    /// maximum wait (30 s for events), so the run would no longer be bounded. Every other parameter is generated.
    static let pinned = [
        (operationID: "listEvents", parameter: "query.wait", value: 0, reason: "a long poll: up to 30 s a request"),
        (operationID: "listWebhooks", parameter: "query.wait", value: 0, reason: "waits up to 5 s a request"),
    ]

    /// The schemathesis configuration for ``exclusions`` and ``pinned``: one `[[operations]]` table each, its reason
    /// as a comment.
    static var configuration: String {
        pinned.map { pin in
            """
            # \(pin.reason)
            [[operations]]
            include-operation-id = "\(pin.operationID)"
            parameters = { "\(pin.parameter)" = \(pin.value) }

            """
        }.joined(separator: "\n")
            + exclusions.map { exclusion in
                let statuses = (acceptedStatuses + exclusion.alsoExpected).map { "\"\($0)\"" }.joined(separator: ", ")
                return """
                    # \(exclusion.reason)
                    [[operations]]
                    include-operation-id = "\(exclusion.operationID)"
                    checks.\(exclusion.check).expected-statuses = [\(statuses)]

                    """
            }.joined(separator: "\n")
    }

    /// schemathesis' `Selected: X/Y` line as (selected, in the document).
    static func selected(_ output: String) -> (Int, Int)? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Selected: ") }),
            let counts = line.split(separator: " ").last?.split(separator: "/"), counts.count == 2,
            let selected = Int(counts[0]), let total = Int(counts[1])
        else { return nil }
        return (selected, total)
    }

    @Test func productionModePassesEveryCheckOnEveryOperation() async throws {
        let p = try await RemoteCLITests.startProduction(serveOptions: ["--allow-state-replace"])
        defer { p.server.stop(); try? FileManager.default.removeItem(atPath: p.dir) }
        let config = p.dir + "/schemathesis.toml"
        try Self.configuration.write(toFile: config, atomically: true, encoding: .utf8)

        let done = try await ChildProcess.run(
            "python3",
            arguments: [
                "-m", "schemathesis.cli", "--config-file", config, "run", p.base + "/admin/api/v1/openapi.json",
                "--checks", "all", "--max-examples", "10", "--seed", "1", "--workers", "1", "--no-color",
                "--generation-database", "none", "--header", "Authorization: Bearer \(p.token)",
                "--exclude-operation-id", Self.leftOut.operationID,
            ], mergingStandardError: true)
        let output = done.standardOutput

        #expect(done.status == 0, "schemathesis failed:\n\(output)")
        // Every operation of the document but the one left out, whoever added it.
        let (selected, total) = try #require(Self.selected(output), "\(output)")
        #expect(selected == total - 1 && total > 50, "\(output)")
        #expect(output.contains("✅ Stateful"), "\(output)")
        #expect(!output.contains("Authentication failed"), "the token stopped working during the run:\n\(output)")
        #expect(!output.contains("failures"), "\(output)")
    }

    @Test func everyExclusionNamesAnOperationOfTheDocumentThatDescribesItsRule() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../Sources/GatehouseServer/Resources/openapi/admin-v1.yaml")
        let yaml = try String(contentsOf: url.standardizedFileURL, encoding: .utf8)
        for exclusion in Self.exclusions {
            let operation = try #require(
                yaml.range(of: "operationId: \(exclusion.operationID)\n"), "\(exclusion.operationID) is not documented")
            let following = yaml[operation.upperBound...].prefix(600)
            #expect(
                following.contains("description:"),
                "\(exclusion.operationID) is excluded from \(exclusion.check) but its description says no rule")
        }
        #expect(yaml.contains("operationId: \(Self.leftOut.operationID)\n"))
    }
}
