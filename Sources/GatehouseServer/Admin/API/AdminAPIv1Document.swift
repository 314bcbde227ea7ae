import Foundation
import GatehouseProtocol
import Hummingbird
import Yams

/// The OpenAPI 3.1 document of `/admin/api/v1` (`Resources/openapi/admin-v1.yaml`, hand-written: it is the
/// contract, and tests keep the routes and the document the same). Served as written at `openapi.yaml` and
/// converted to JSON at `openapi.json`.
enum AdminAPIv1Document {
    /// The document's text as shipped.
    static let yaml: String = {
        guard
            let url = Bundle.module.url(forResource: "Resources", withExtension: nil)?.appendingPathComponent(
                "openapi/admin-v1.yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return "openapi: 3.1.0\n" }
        return text
    }()

    /// The document as JSON, keys in the YAML's order (converted once: the file never changes while running).
    static let json: JSONValue = (try? parse(yaml)) ?? .null

    /// A YAML document as JSON (YAML 1.1 scalars typed as Yams resolves them), keys in order.
    static func parse(_ text: String) throws -> JSONValue {
        try Yams.compose(yaml: text).map(convert) ?? .null
    }

    /// The operations the document describes, as `METHOD /path` (the path relative to `/admin/api/v1`).
    static func operations(_ document: JSONValue) -> Set<String> {
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        var found = Set<String>()
        for (path, item) in document["paths"]?.objectValue?.pairs ?? [] {
            for method in item.objectValue?.keys ?? [] where methods.contains(method) {
                found.insert(method.uppercased() + " " + path)
            }
        }
        return found
    }

    static func convert(_ node: Node) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch Tag.Name(rawValue: node.tag.rawValue) {
            case .null: return .null
            case .bool: return node.bool.map(JSONValue.bool) ?? .string(scalar.string)
            case .int: return node.int.map { .int(Int64($0)) } ?? .string(scalar.string)
            case .float: return node.float.map(JSONValue.double) ?? .string(scalar.string)
            default: return .string(scalar.string)
            }
        case .mapping(let mapping):
            return .object(JSONObject(mapping.map { key, value in (key.string ?? "", convert(value)) }))
        case .sequence(let sequence):
            return .array(sequence.map(convert))
        case .alias:
            return .null
        }
    }

    /// `GET /openapi.yaml` and `GET /openapi.json`: open to anyone, so a tool can read the contract before it has a token.
    static var routes: [V1Route] {
        [
            V1Route(method: .get, path: "/openapi.json", guarded: false) { _ in AdminAPIv1.reply(json) },
            V1Route(method: .get, path: "/openapi.yaml", guarded: false) { _ in
                var headers = HTTPFields()
                headers[.contentType] = "application/yaml; charset=UTF-8"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: yaml)))
            },
        ]
    }
}
