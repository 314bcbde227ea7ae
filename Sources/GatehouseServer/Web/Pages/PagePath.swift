import Foundation
import GatehouseProtocol

/// Every path the web pages answer, and the addresses built from them: the one place Swift code spells a
/// `/console…`, `/settings…`, `/account…`, `/dialog…`, `/login` or `/device…` path (the templates keep their literal
/// hrefs). Routes register with the patterns (`:id` is a parameter); redirects and links use the builders, so a
/// page's address changes in one line.
enum PagePath {
    /// The password form for the settings and account pages (`?next=` says where it goes after).
    static let login = "/login"

    /// Ends the browser's session (the account page's "Log out").
    static let logout = "/logout"

    /// `/login?next=…`: the settings login form, going on to `next` once the password is right.
    static func login(next: String) -> String {
        login + "?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    /// The address with `?notice=` set: the page then shows that notice's sentence.
    static func notice(_ path: String, _ notice: String) -> String { path + "?notice=" + notice }

    /// The developer console (``ConsoleController``) and its admin login.
    enum Console {
        static let home = "/console"
        static let login = "/console/login"
        static let logout = "/console/logout"
        static let apps = "/console/apps"
        static let app = "/console/apps/:id"
        static let appResetSecret = "/console/apps/:id/reset-secret"
        static let appRoles = "/console/apps/:id/roles"
        static let appWebhooks = "/console/apps/:id/webhooks"
        static let appSubscribe = "/console/apps/:id/webhooks/subscribe"
        static let appUnsubscribe = "/console/apps/:id/webhooks/unsubscribe"
        static let appWebhookResend = "/console/apps/:id/webhooks/:webhook/resend"
        static let users = "/console/users"
        static let user = "/console/users/:id"
        static let userPicturePNG = "/console/users/:id/picture.png"
        static let userPicture = "/console/users/:id/picture"
        static let userPassword = "/console/users/:id/password"
        static let userFriends = "/console/users/:id/friends"
        static let userState = "/console/users/:id/state"
        static let userTwoFactor = "/console/users/:id/two-factor"
        static let tokens = "/console/tokens"
        static let tokenRevoke = "/console/tokens/:id/revoke"
        static let errors = "/console/errors"
        static let errorsClear = "/console/errors/clear"
        static let errorDelete = "/console/errors/:id/delete"
        static let clock = "/console/clock"
        static let clockAdvance = "/console/clock/advance"
        static let clockReset = "/console/clock/reset"
        static let data = "/console/data"
        static let dataImport = "/console/data/import"
        static let explorer = "/console/explorer"
        static let activity = "/console/activity"
        static let activityStream = "/console/activity/stream"
        static let activityEntry = "/console/activity/:seq"
        static let mail = "/console/mail"
        static let mailDelete = "/console/mail/delete"
        static let mailSignUp = "/console/mail/signup"
        static let mailInvite = "/console/mail/invite"
        static let social = "/console/social"
        static let postDelete = "/console/posts/:id/delete"
        static let requestDelete = "/console/requests/:id/delete"
        static let requestAccept = "/console/requests/:id/accept"
        static let adminTokens = "/console/admin-tokens"
        static let adminTokenRevoke = "/console/admin-tokens/:id/revoke"

        /// One app's page, with a notice.
        static func app(_ id: String, notice: String) -> String { PagePath.notice(apps + "/" + id, notice) }

        /// One app's Webhooks page, with a notice.
        static func appWebhooks(_ id: String, notice: String) -> String {
            PagePath.notice(apps + "/" + id + "/webhooks", notice)
        }

        /// One person's page, with a notice.
        static func user(_ id: String, notice: String) -> String { PagePath.notice(users + "/" + id, notice) }

        /// The admin login form, going on to `next`; `failed`: after a wrong password.
        static func login(next: String, failed: Bool = false) -> String {
            login + (failed ? "?error=1&next=" : "?next=") + FormEncoding.escape(next)
        }

        /// Whether `path` is one of the console's pages.
        static func contains(_ path: String) -> Bool { path == home || path.hasPrefix(home + "/") }
    }

    /// The person's settings: apps and their permissions, security, two-factor login.
    enum Settings {
        static let home = "/settings"
        static let apps = "/settings/apps"
        static let appsRemove = "/settings/apps/remove"
        static let appsRevoke = "/settings/apps/revoke"
        static let appsDeleteData = "/settings/apps/delete-data"
        static let security = "/settings/security"
        static let sessionLogout = "/settings/sessions/logout"
        static let sessionsLogoutAll = "/settings/sessions/logout-all"
        static let password = "/settings/password"
        static let accountDelete = "/settings/account/delete"
        static let twoFactor = "/settings/two-factor"
        static let twoFactorStart = "/settings/two-factor/start"
        static let twoFactorConfirm = "/settings/two-factor/confirm"
        static let twoFactorDisable = "/settings/two-factor/disable"
    }

    /// The person's account page and the account flows (sign-up, confirmation, password recovery).
    enum Account {
        static let home = "/account"
        static let signUp = "/account/signup"
        static let confirm = "/account/confirm"
        static let confirmResend = "/account/confirm/resend"
        static let recover = "/account/recover"
        static let reset = "/account/reset"
    }

    /// The login dialog's forms and the pages a login meets on the way (``DialogReturn`` builds the way back).
    enum Dialog {
        static let oauth = "/dialog/oauth"
        static let login = "/dialog/oauth/login"
        static let consent = "/dialog/oauth/consent"
        static let publish = "/dialog/oauth/publish"
        static let pick = "/dialog/oauth/pick"
        static let testUser = "/dialog/oauth/test-user"
        static let accountContinue = "/dialog/account/continue"
        static let loginCode = "/dialog/login_code"
        static let feed = "/dialog/feed"
        static let feedPost = "/dialog/feed/post"
        static let appRequests = "/dialog/apprequests"
        static let appRequestsSend = "/dialog/apprequests/send"
        /// The folder every dialog's path is under, and the prefix each starts with.
        static let root = "/dialog"
        static let prefix = root + "/"
    }

    /// Device login's page for the person (the device's own calls are Graph routes).
    enum Device {
        static let home = "/device"
        static let signIn = "/device/signin"
        static let consent = "/device/consent"

        /// The device page for the code the person typed.
        static func code(_ userCode: String) -> String { home + "?" + FormEncoding.encode([("user_code", userCode)]) }
    }

    /// A test user's `login_url` (development mode).
    static let testUserLogin = "/testuser/login"

    /// Development mode's stand-in for an app's redirect URI: shows the code it got.
    static let devCallback = "/dev/callback"
}
