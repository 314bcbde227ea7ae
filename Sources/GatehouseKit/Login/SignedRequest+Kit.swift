// `SignedRequest.parse(_:secret:)` for an app's backend, available with `import GatehouseKit` alone: it verifies
// the HMAC-SHA256 signature (constant time) and the algorithm, and throws `SignedRequestError`
// (`.malformed`, `.badSignature`, `.unsupportedAlgorithm`, `.expired`). The payload is a `JSONObject`.
@_exported import enum GatehouseProtocol.SignedRequest
@_exported import enum GatehouseProtocol.SignedRequestError
@_exported import struct GatehouseProtocol.JSONObject
@_exported import enum GatehouseProtocol.JSONValue
