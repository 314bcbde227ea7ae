import GatehouseCore
import Hummingbird

/// Who may use the console: everyone in development mode; in production mode, only a signed-in admin.
struct ConsoleAccess: Sendable {
    let services: GatehouseServices

    /// Development mode: everyone. Production mode: a live admin session or admin token, and a writable one for
    /// anything but a read (``AdminGate`` already refused anyone else, so this is a second check behind it).
    func allows(_ request: Request) async -> Bool {
        if services.configuration.isDevelopment { return true }
        return await AdminAuthorization(services: services).decide(request).isAllowed
    }
}
