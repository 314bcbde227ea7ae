import Foundation

/// Facebook's SDK 4.x entry points, which kept read and publish permissions apart
/// (`logInWithReadPermissions:fromViewController:handler:` / `logInWithPublishPermissions:…`).
///
/// `logIn(permissions:)` accepts both kinds at once, as today's SDK does, and the dialog then shows its
/// publish step after the read step. These two refuse a mix before any dialog, with the message 4.x raised.
extension LoginManager {
    /// Logs in asking for read permissions only; a publish permission fails with CoreError 2.
    public func logIn(
        readPermissions: [String], from viewController: AnyObject? = nil, handler: LoginManagerLoginResultBlock?
    ) {
        if readPermissions.contains(where: PermissionKind.isPublish) {
            handler?(
                nil, CoreError(.invalidArgument, message: SessionError.publishPermissionsInReadRequest.description))
            return
        }
        logIn(permissions: readPermissions, from: viewController, handler: handler)
    }

    /// Logs in asking for publish permissions only, with ``defaultAudience`` preselected on the dialog's
    /// publish step; a read permission fails with CoreError 2.
    public func logIn(
        publishPermissions: [String], from viewController: AnyObject? = nil, handler: LoginManagerLoginResultBlock?
    ) {
        if publishPermissions.contains(where: { !PermissionKind.isPublish($0) }) {
            handler?(
                nil, CoreError(.invalidArgument, message: SessionError.readPermissionsInPublishRequest.description))
            return
        }
        logIn(permissions: publishPermissions, from: viewController, handler: handler)
    }

    /// `logIn(publishPermissions:from:handler:)` awaited.
    public func logIn(publishPermissions: [String]) async throws -> LoginManagerLoginResult {
        if publishPermissions.contains(where: { !PermissionKind.isPublish($0) }) {
            throw CoreError(.invalidArgument, message: SessionError.readPermissionsInPublishRequest.description)
        }
        return try await logIn(permissions: publishPermissions)
    }

    /// `logIn(readPermissions:from:handler:)` awaited.
    public func logIn(readPermissions: [String]) async throws -> LoginManagerLoginResult {
        if readPermissions.contains(where: PermissionKind.isPublish) {
            throw CoreError(.invalidArgument, message: SessionError.publishPermissionsInReadRequest.description)
        }
        return try await logIn(permissions: readPermissions)
    }
}
