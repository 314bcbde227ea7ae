// Facebook's SDK modules bring Foundation with them (their umbrella headers import it), so app code that
// uses `NSError`, `URL` or `Date` after `import FBSDKCoreKit` alone must find them after `import GatehouseKit`.
@_exported import Foundation
