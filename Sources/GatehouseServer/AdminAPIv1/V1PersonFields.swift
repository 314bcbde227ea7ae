import GatehouseCore
import Foundation
import GatehouseProtocol

/// The profile fields of a person in a v1 body (create or PATCH), read and checked as a whole. Left out is nil
/// (unchanged); for the optional fields an explicit null clears them (`.some(nil)`).
struct PersonFields {
    var firstName: String?
    var lastName: String?
    var middleName: String??
    var birthday: String??
    var gender: String??
    var location: Place??
    var hometown: Place??
    var quotes: String??
    var picture: Data??

    /// - Throws: a validation ``Problem`` naming the first field that is wrong.
    static func read(_ body: inout RequestBody, services: GatehouseServices, creating: Bool) async throws -> PersonFields {
        var fields = PersonFields()
        if creating || body.has("first_name") { fields.firstName = try body.requiredString("first_name", max: 100) }
        if creating || body.has("last_name") { fields.lastName = try body.requiredString("last_name", max: 100) }
        if body.has("middle_name") { fields.middleName = .some(try body.string("middle_name", max: 100).flatMap { $0.isEmpty ? nil : $0 }) }
        if body.has("birthday") {
            let birthday = try body.string("birthday", max: 10)
            if let birthday, !AccountService.isValidBirthday(birthday) {
                throw Problem.validation("birthday", "birthday must be MM/DD/YYYY, MM/DD or YYYY")
            }
            fields.birthday = .some(birthday)
        }
        if body.has("gender") { fields.gender = .some(try body.string("gender", max: 50)) }
        if body.has("quotes") { fields.quotes = .some(try body.string("quotes", max: 5000)) }
        for field in ["location", "hometown"] where body.has(field) {
            let place = try Self.place(body.value(field), field: field, services: services)
            if field == "location" { fields.location = .some(place) } else { fields.hometown = .some(place) }
        }
        if body.has("picture_base64") {
            guard let text = try body.string("picture_base64", max: 3 << 20) else {
                fields.picture = .some(nil)
                return fields
            }
            guard let data = Data(base64Encoded: text) else { throw Problem.validation("picture_base64", "picture_base64 must be base64") }
            guard data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
                throw Problem.validation("picture_base64", "the picture must be a PNG file")
            }
            guard data.count <= 2 << 20 else { throw Problem.validation("picture_base64", "the picture must be at most 2 MiB") }
            fields.picture = .some(data)
        }
        return fields
    }

    /// A place: its name (the id derived from it, as the console does) or `{"id":…,"name":…}`; null clears it.
    static func place(_ value: JSONValue?, field: String, services: GatehouseServices) throws -> Place? {
        guard let value, !value.isNull else { return nil }
        if let name = value.stringValue, !name.isEmpty, name.count <= 200 { return services.accounts.place(named: name) }
        if let name = value["name"]?.stringValue, !name.isEmpty, name.count <= 200 {
            guard let id = value["id"]?.stringValue else { return services.accounts.place(named: name) }
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
        if let middleName { person.middleName = middleName }
        if let birthday { person.birthday = birthday }
        if let gender { person.gender = gender }
        if let location { person.location = location }
        if let hometown { person.hometown = hometown }
        if let quotes { person.quotes = quotes }
        if let picture { person.picture = picture }
    }

    func apply(to new: inout NewUser) {
        if let firstName { new.firstName = firstName }
        if let lastName { new.lastName = lastName }
        new.middleName = middleName ?? nil
        new.birthday = birthday ?? nil
        new.gender = gender ?? nil
        new.location = location ?? nil
        new.hometown = hometown ?? nil
        new.picture = picture ?? nil
    }

    /// Whether a create with these fields would have made `person` (fields left out take their defaults).
    func describes(_ person: UserRecord, email: String, testUserOf: String?) async throws -> Bool {
        var wanted = person
        guard person.email.lowercased() == email.lowercased() else { return false }
        wanted.testUserOfAppID = testUserOf
        wanted.middleName = nil
        wanted.birthday = nil
        wanted.gender = nil
        wanted.location = nil
        wanted.hometown = nil
        wanted.quotes = nil
        wanted.picture = nil
        apply(to: &wanted)
        return wanted == person
    }
}
