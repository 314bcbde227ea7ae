// Seeds 000/001, "Manage your own token cache", Step 1a and 1b: MyTokenCachingStrategy, which keeps the
// token dictionary in a property list, and the app delegate's openSessionWithAllowLoginUI:, ported. Each
// edit Swift required is listed in docs/PORTING.md ("Seed samples, edit by edit").
import Foundation
import GatehouseKit

// Local cache - unique file info
let kFilename = "TokenInfo.plist"

class MyTokenCachingStrategy: FBSessionTokenCachingStrategy, @unchecked Sendable {
    var tokenFilePath: String!

    override init() {
        super.init()
        self.tokenFilePath = self.filePath()
    }

    func filePath() -> String {
        let paths =
            NSSearchPathForDirectoriesInDomains(
                .documentDirectory,
                .userDomainMask, true)
        let documentsDirectory = paths.last!
        return (documentsDirectory as NSString).appendingPathComponent(kFilename)
    }

    func writeData(_ data: [String: Any]) {
        NSLog("File = %@ and Data = %@", self.tokenFilePath, "\(data)")
        let success = (data as NSDictionary).write(toFile: self.tokenFilePath, atomically: true)
        if !success {
            NSLog("Error writing to file")
        }
    }

    func readData() -> [String: Any]? {
        let data =
            (try? PropertyListSerialization.propertyList(
                from: Data(contentsOf: URL(fileURLWithPath: self.tokenFilePath)), format: nil)) as? [String: Any]
        NSLog("File = %@ and data = %@", self.tokenFilePath, "\(String(describing: data))")
        return data
    }

    override func cacheFBAccessTokenData(_ accessToken: FBAccessTokenData) {
        let tokenInformation = accessToken.dictionary()
        self.writeData(tokenInformation)
    }

    override func fetchFBAccessTokenData() -> FBAccessTokenData? {
        let tokenInformation = self.readData()
        if nil == tokenInformation {
            return nil
        } else {
            return FBAccessTokenData.createTokenFromDictionary(tokenInformation!)
        }
    }

    override func clearToken() {
        self.writeData([:])
    }
}

/// The app delegate of Step 1b.
final class TokenCacheAppDelegate: @unchecked Sendable {
    var tokenCaching: MyTokenCachingStrategy?
    /// What `sessionStateChanged:state:error:` was told, for the test to read.
    private(set) var states: [SessionState] = []
    private(set) var lastSession: Session?

    func openSessionWithAllowLoginUI(_ allowLoginUI: Bool) -> Bool {
        var openSessionResult = false
        // Set up token strategy, if needed
        if nil == tokenCaching {
            tokenCaching = MyTokenCachingStrategy()
        }
        // Initialize a session object with the tokenCacheStrategy
        let session = Session(
            appID: nil,
            permissions: ["public_profile"],
            urlSchemeSuffix: nil,
            tokenCache: tokenCaching)
        // If showing the login UI, or if a cached token is available,
        // then open the session.
        if allowLoginUI || session.state == .createdTokenLoaded {
            // For debugging purposes log if cached token was found
            if session.state == .createdTokenLoaded {
                NSLog("Cached token found.")
            }
            // Set the active session
            Session.setActiveSession(session)
            // Open the session.
            session.open(behavior: .useSystemAccountIfPresent) { session, state, error in
                self.sessionStateChanged(session, state: state, error: error)
            }
            // Return the result - will be set to open immediately from the session
            // open call if a cached token was previously found.
            openSessionResult = session.isOpen
        }
        return openSessionResult
    }

    func sessionStateChanged(_ session: Session, state: SessionState, error: (any Error)?) {
        states.append(state)
        lastSession = session
    }
}
