import Foundation

/// A JSON object of named entries kept in one owner-only file (the file caches' UserDefaults).
///
/// Reading never fails: a missing, unreadable or corrupt file reads as empty, and an entry that no
/// longer decodes is skipped, so a damaged cache means "logged out", never a crash. The next write
/// replaces the damaged file.
final class JSONFileStore<Entry: Codable & Sendable>: @unchecked Sendable {
    let fileURL: URL
    private let lock = NSLock()

    init(fileURL: URL) { self.fileURL = fileURL }

    /// Every entry that decodes.
    func read() -> [String: Entry] {
        lock.withLock { load() }
    }

    /// Applies `change` to the entries and writes the result (an empty result removes the file).
    /// Returns what `change` returned; a failed write leaves the old file in place.
    @discardableResult
    func update<T>(_ change: (inout [String: Entry]) -> T) -> T {
        lock.withLock {
            var entries = load()
            let result = change(&entries)
            if entries.isEmpty {
                SecureFile.remove(fileURL)
            } else if let data = try? Self.encoder.encode(entries) {
                try? SecureFile.write(data, to: fileURL)
            }
            return result
        }
    }

    private func load() -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: fileURL.path),
            let entries = try? JSONDecoder().decode([String: Lenient].self, from: data)
        else { return [:] }
        return entries.compactMapValues(\.value)
    }

    // Dates stay in Foundation's own representation so a token read back compares equal to the one written.
    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }

    private struct Lenient: Decodable {
        let value: Entry?
        init(from decoder: any Decoder) throws { value = try? Entry(from: decoder) }
    }
}
