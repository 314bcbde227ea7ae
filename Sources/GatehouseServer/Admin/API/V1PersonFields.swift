import GatehouseCore
import Foundation
import GatehouseProtocol

/// The profile fields of a person in a v1 body (create or PATCH), read and checked as a whole. Left out is nil
/// (unchanged); for the optional fields an explicit null clears them. Besides the names and the picture, the
/// fields are the field table's text and place fields (`UserFieldValue.editable`).
struct PersonFields {
    /// A field table value the body states; nil inside clears the field.
    enum Stated: Equatable {
        case text(String?)
        case place(Place?)
    }

    var firstName: String?
    var lastName: String?
    /// Field name → what the body states for it.
    var profile: [String: Stated] = [:]
    var picture: Data??

    /// - Throws: a validation ``Problem`` naming the first field that is wrong.
    static func read(_ body: inout RequestBody, services: GatehouseServices, creating: Bool) async throws
        -> PersonFields
    {
        var fields = PersonFields()
        if creating || body.has("first_name") { fields.firstName = try body.requiredString("first_name", max: 100) }
        if creating || body.has("last_name") { fields.lastName = try body.requiredString("last_name", max: 100) }
        for entry in UserFieldValue.editable where body.has(entry.field.name) {
            let name = entry.field.name
            if case .place = entry.kind {
                fields.profile[name] = .place(try Self.place(body.value(name), field: name, services: services))
                continue
            }
            let text = try body.string(name, max: 5000).flatMap { $0.isEmpty ? nil : $0 }
            if let text, let problem = entry.problem(text) { throw Problem.validation(name, problem) }
            fields.profile[name] = .text(text)
        }
        if body.has("picture_base64") {
            guard let text = try body.string("picture_base64", max: 3 << 20) else {
                fields.picture = .some(nil)
                return fields
            }
            guard let data = Data(base64Encoded: text) else {
                throw Problem.validation("picture_base64", "picture_base64 must be base64")
            }
            guard data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                throw Problem.validation("picture_base64", "the picture must be a PNG file")
            }
            guard data.count <= 2 << 20 else {
                throw Problem.validation("picture_base64", "the picture must be at most 2 MiB")
            }
            fields.picture = .some(data)
        }
        return fields
    }

    /// A place: its name (the id derived from it, as the console does) or `{"id":…,"name":…}`; null clears it.
    static func place(_ value: JSONValue?, field: String, services: GatehouseServices) throws -> Place? {
        guard let value, !value.isNull else { return nil }
        if let name = value.stringValue, !name.isEmpty, name.unicodeScalars.count <= 200 {
            return services.accounts.place(named: name)
        }
        if case .object(let object) = value, let name = value["name"]?.stringValue, !name.isEmpty,
            name.unicodeScalars.count <= 200
        {
            if let unknown = object.keys.first(where: { $0 != "id" && $0 != "name" }) {
                throw Problem.validation(
                    "\(field).\(unknown)", "unknown field \(GraphError.echo("\(field).\(unknown)"))")
            }
            guard let id = value["id"]?.stringValue else {
                guard value["id"] == nil else {
                    throw Problem.validation("\(field).id", "\(field).id must be 1 to 20 digits")
                }
                return services.accounts.place(named: name)
            }
            guard !id.isEmpty, id.count <= 20, id.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw Problem.validation("\(field).id", "\(field).id must be 1 to 20 digits")
            }
            return Place(id: id, name: name)
        }
        throw Problem.validation(field, "\(field) must be a place name or {\"id\": …, \"name\": …}")
    }

    func apply(to person: inout UserRecord) {
        if let firstName { person.firstName = firstName }
        if let lastName { person.lastName = lastName }
        for entry in UserFieldValue.editable {
            switch (entry.kind, profile[entry.field.name]) {
            case (.text(let path, _, _), .text(let value)?): person[keyPath: path] = value
            case (.place(let path, _, _), .place(let value)?): person[keyPath: path] = value
            default: break
            }
        }
        if let picture { person.picture = picture }
    }

    /// The names and picture; the field table's fields are written after the person exists (`apply(to:)`).
    func apply(to new: inout NewUser) {
        if let firstName { new.firstName = firstName }
        if let lastName { new.lastName = lastName }
        new.picture = picture ?? nil
    }

    /// Whether a create with these fields would have made `person` (fields left out take their defaults).
    func describes(_ person: UserRecord, email: String, testUserOf: String?) async throws -> Bool {
        var wanted = person
        guard person.email.lowercased() == email.lowercased() else { return false }
        wanted.testUserOfAppID = testUserOf
        for entry in UserFieldValue.editable { entry.assign(nil, to: &wanted) { Place(id: "", name: $0) } }
        wanted.picture = nil
        apply(to: &wanted)
        return wanted == person
    }
}
