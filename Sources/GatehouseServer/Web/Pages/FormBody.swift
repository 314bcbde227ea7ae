import GatehouseCore
import Foundation
import GatehouseProtocol
import Hummingbird
import MultipartKit

/// A submitted HTML form: url-encoded, or multipart when it carries a file. Every page's form (the dialog, the
/// account flows, the settings, the console) is read through ``read(_:limit:)``.
struct FormBody: Sendable {
    /// Fields in order; repeated names (checkbox groups) appear once per value.
    var pairs: [(String, String)]
    /// Uploaded files by field name (multipart only).
    var files: [String: [UInt8]]

    subscript(name: String) -> String? { pairs.first { $0.0 == name }?.1 }
    /// Each field's first value, by name.
    var fields: [String: String] { Dictionary(pairs, uniquingKeysWith: { first, _ in first }) }
    func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// Reads the body up to `limit` bytes; nil when it is too large or malformed.
    static func read(_ request: Request, limit: Int) async -> FormBody? {
        var request = request
        guard let buffer = try? await request.collectBody(upTo: limit) else { return nil }
        let type = request.headers[.contentType] ?? ""
        if type.lowercased().hasPrefix("multipart/form-data") {
            guard let boundary = Self.boundary(type) else { return nil }
            return multipart(buffer, boundary: boundary)
        }
        guard let pairs = FormEncoding.decode(String(buffer: buffer)) else { return nil }
        return FormBody(pairs: pairs, files: [:])
    }

    static func boundary(_ contentType: String) -> String? {
        for part in contentType.split(separator: ";") {
            let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if kv.count == 2, kv[0].lowercased() == "boundary" {
                let value = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty || value.count > 200 ? nil : value
            }
        }
        return nil
    }

    /// MultipartKit's parser does the framing; here we only collect each part's name, filename and bytes.
    static func multipart(_ buffer: ByteBuffer, boundary: String) -> FormBody? {
        let parser = MultipartParser(boundary: boundary)
        var pairs: [(String, String)] = [], files: [String: [UInt8]] = [:]
        var disposition = "", body: [UInt8] = []
        parser.onHeader = { name, value in
            if name.lowercased() == "content-disposition" { disposition = value }
        }
        parser.onBody = { chunk in body += chunk.readBytes(length: chunk.readableBytes) ?? [] }
        parser.onPartComplete = {
            let params = Self.dispositionParameters(disposition)
            if let name = params["name"] {
                if params["filename"] != nil {
                    files[name] = body
                } else {
                    pairs.append((name, String(decoding: body, as: UTF8.self)))
                }
            }
            disposition = ""
            body = []
        }
        do { try parser.execute(buffer) } catch { return nil }
        return FormBody(pairs: pairs, files: files)
    }

    static func dispositionParameters(_ header: String) -> [String: String] {
        var out: [String: String] = [:]
        for part in header.split(separator: ";").dropFirst() {
            let kv = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            out[kv[0].lowercased()] = kv[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return out
    }
}
