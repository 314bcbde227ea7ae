import Foundation

/// ``KeychainTokenCache``'s rules without the Keychain, so they are tested on every platform: one stored item holds
/// a key's ``TokenCacheEntry`` as JSON, and the installation id it was written under is kept apart (in UserDefaults,
/// which an uninstall wipes while the Keychain survives). An item whose id is not this installation's, or that no
/// longer decodes, is deleted rather than read, so a reinstall does not log the person back in.
///
/// The Keychain cache supplies the item and the id through these closures and serialises the calls.
struct InstallBoundTokenItem {
    /// The item's bytes, or nil when there is none.
    var read: () -> Data?
    /// Adds or replaces the item.
    var write: (Data) -> Void
    var delete: () -> Void
    /// The installation id, or nil when this installation has none yet.
    var installID: () -> String?
    var setInstallID: (String) -> Void

    /// The entry, when it was written by this installation; a stale or corrupt item is deleted.
    func entry() -> TokenCacheEntry? {
        guard let data = read() else { return nil }
        guard let entry = try? JSONDecoder().decode(TokenCacheEntry.self, from: data), entry.tokenUUID == installID()
        else {
            // Corrupt, or left by an earlier installation.
            delete()
            return nil
        }
        return entry
    }

    /// Applies `change` to this installation's entry (a fresh one when the item is missing, stale or corrupt), giving
    /// the installation an id first if it has none. An entry left with nothing in it is deleted.
    func modify(_ change: (inout TokenCacheEntry) -> Void) {
        let id = installID() ?? UUID().uuidString
        setInstallID(id)
        var entry =
            read().flatMap { try? JSONDecoder().decode(TokenCacheEntry.self, from: $0) }
            .flatMap { $0.tokenUUID == id ? $0 : nil } ?? TokenCacheEntry(tokenUUID: id)
        change(&entry)
        if entry.isEmpty {
            delete()
        } else if let data = try? JSONEncoder().encode(entry) {
            write(data)
        }
    }
}
