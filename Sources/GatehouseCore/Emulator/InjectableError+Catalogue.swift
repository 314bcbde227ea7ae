import GatehouseProtocol

extension InjectableError {
    /// The catalogue of injectable errors as `GET /admin/api/v1/injections/catalogue` answers it and
    /// `gatehouse inject --list --json` prints it: `{"data": [{"error": "190/460", "name": "password-changed", "title": …}]}`.
    package static var catalogue: JSONValue {
        [
            "data": .array(
                allCases.map { error in
                    ["error": .string(error.rawValue), "name": .string(error.name), "title": .string(error.title)]
                })
        ]
    }
}
