import Foundation

/// The reinstall detector: a random id that lives with the app's installation, stored next to each
/// cached token as its `tokenUUID`.
///
/// Facebook keeps the id in UserDefaults (wiped on uninstall) and the token in the keychain (kept),
/// so after a reinstall the ids differ and the stale token is discarded. Here the marker is a small
/// file; put it where the app's installation data lives to get the same effect.
struct InstallMarker: Sendable {
    let url: URL

    /// The stored id, or nil when the file is missing or does not hold a UUID.
    func read() -> String? {
        guard let data = FileManager.default.contents(atPath: url.path),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            let uuid = UUID(uuidString: text)
        else { return nil }
        return uuid.uuidString
    }

    /// The stored id, creating one if there is none. When two writers race, the first file wins and
    /// both return its id.
    func readOrCreate() -> String {
        if let existing = read() { return existing }
        let fresh = UUID().uuidString
        let data = Data((fresh + "\n").utf8)
        do {
            if FileManager.default.fileExists(atPath: url.path) {
                // Present but unreadable: replace it.
                try SecureFile.write(data, to: url)
            } else {
                try SecureFile.write(data, to: url, exclusive: true)
            }
        } catch {
            return read() ?? fresh
        }
        return read() ?? fresh
    }

    /// Whether an entry written with `tokenUUID` belongs to this installation.
    static func matches(marker: String?, tokenUUID: String) -> Bool {
        guard let marker else { return false }
        return marker == tokenUUID
    }
}
