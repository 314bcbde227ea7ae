import GatehouseCore
import Foundation
import GatehouseProtocol

/// `gatehouse inject --list`: the errors that can be injected. With `--server`, the server's own catalogue
/// (`GET /admin/api/v1/injections/catalogue`); otherwise the catalogue this binary was built with, which is the
/// same list (``InjectableError``) a server of the same version serves.
enum InjectCatalogue {
    static func print(server: AdminServerOptions) async throws {
        let catalogue: JSONValue
        if server.server != nil {
            let data = try await server.call("GET", "/injections/catalogue").1
            guard let value = try? JSONValue.parse(data) else { throw fail("the server's catalogue is not JSON") }
            catalogue = value
        } else {
            catalogue = InjectableError.catalogue
        }
        if server.json { Swift.print(prettyJSON(catalogue)); return }
        for item in catalogue["data"]?.arrayValue ?? [] {
            let error = item["error"]?.stringValue ?? "", name = item["name"]?.stringValue ?? ""
            Swift.print(
                error.padding(toLength: 8, withPad: " ", startingAt: 0)
                    + name.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + (item["title"]?.stringValue ?? ""))
        }
    }
}
