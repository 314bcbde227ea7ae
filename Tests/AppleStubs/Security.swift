// A stub of Apple's Security framework for type-checking GatehouseKit's Keychain layer on Linux
// (AppleLayerTypeCheckTests). It declares only what Sources/GatehouseKit uses, with the Swift signatures from the
// Apple documentation page named above each declaration. Nothing here runs: the bodies only satisfy the compiler.
//
// Apple's Core Foundation types are toll-free bridged to Foundation's classes. Linux's Foundation has no Core
// Foundation types, so the stub names the bridged Foundation class instead; `x as CFDictionary` and
// `kSecClass as String` then type-check as they do on Apple platforms.
import Foundation

/// https://developer.apple.com/documentation/corefoundation/cfstring (toll-free bridged with NSString)
public typealias CFString = NSString
/// https://developer.apple.com/documentation/corefoundation/cfdictionary (toll-free bridged with NSDictionary)
public typealias CFDictionary = NSDictionary
/// https://developer.apple.com/documentation/corefoundation/cftyperef
public typealias CFTypeRef = AnyObject
/// https://developer.apple.com/documentation/kernel/osstatus
public typealias OSStatus = Int32

/// https://developer.apple.com/documentation/security/errsecsuccess
public var errSecSuccess: OSStatus { 0 }
/// https://developer.apple.com/documentation/security/errsecitemnotfound
public var errSecItemNotFound: OSStatus { -25300 }

// Imported C functions may have their result ignored, hence `@discardableResult`.

/// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    errSecItemNotFound
}
/// https://developer.apple.com/documentation/security/secitemadd(_:_:)
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    errSecSuccess
}
/// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { errSecItemNotFound }
/// https://developer.apple.com/documentation/security/secitemdelete(_:)
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus { errSecSuccess }

/// https://developer.apple.com/documentation/security/ksecclass
public let kSecClass: CFString = "class"
/// https://developer.apple.com/documentation/security/ksecclassgenericpassword
public let kSecClassGenericPassword: CFString = "genp"
/// https://developer.apple.com/documentation/security/ksecattrservice
public let kSecAttrService: CFString = "svce"
/// https://developer.apple.com/documentation/security/ksecattraccount
public let kSecAttrAccount: CFString = "acct"
/// https://developer.apple.com/documentation/security/ksecattraccessible
public let kSecAttrAccessible: CFString = "pdmn"
/// https://developer.apple.com/documentation/security/ksecattraccessibleafterfirstunlockthisdeviceonly
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// https://developer.apple.com/documentation/security/ksecvaluedata
public let kSecValueData: CFString = "v_Data"
/// https://developer.apple.com/documentation/security/ksecreturndata
public let kSecReturnData: CFString = "r_Data"
/// https://developer.apple.com/documentation/security/ksecmatchlimit
public let kSecMatchLimit: CFString = "m_Limit"
/// https://developer.apple.com/documentation/security/ksecmatchlimitone
public let kSecMatchLimitOne: CFString = "m_LimitOne"
