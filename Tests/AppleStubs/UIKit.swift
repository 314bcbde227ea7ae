// A stub of Apple's UIKit for type-checking GatehouseKit's UIKit layer on Linux (AppleLayerTypeCheckTests).
// It declares only what Sources/GatehouseKit uses, with the Swift signatures from the Apple documentation page
// named above each declaration; parameters with default values that GatehouseKit never passes are left out.
// Nothing here runs: the bodies only satisfy the compiler. Superclasses GatehouseKit never names (UIResponder,
// UIMenuElement, UIPresentationController) are left out, so those classes derive from NSObject directly.
//
// On Apple platforms `import UIKit` also imports Foundation, URLSession included; the stub does the same
// (Linux's Foundation keeps URLSession in FoundationNetworking).
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

// MARK: Foundation API that Linux's Foundation lacks

/// https://developer.apple.com/documentation/foundation/nsuseractivity
open class NSUserActivity: NSObject {
    /// https://developer.apple.com/documentation/foundation/nsuseractivity/activitytype
    open var activityType: String { "" }
    /// https://developer.apple.com/documentation/foundation/nsuseractivity/webpageurl
    open var webpageURL: URL?
}

/// https://developer.apple.com/documentation/foundation/nsuseractivitytypebrowsingweb
public let NSUserActivityTypeBrowsingWeb: String = "NSUserActivityTypeBrowsingWeb"

// MARK: Views

/// https://developer.apple.com/documentation/uikit/uiview
@MainActor
open class UIView: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiview/init(frame:)
    public init(frame: CGRect) { self.frame = frame; bounds = CGRect(origin: .zero, size: frame.size) }
    /// https://developer.apple.com/documentation/uikit/uiview/init(coder:)
    public required init?(coder: NSCoder) { frame = .zero; bounds = .zero }
    /// NSObject's `init()`, which UIKit's views answer with `init(frame: .zero)`:
    /// https://developer.apple.com/documentation/objectivec/nsobject/init()
    public convenience override init() { self.init(frame: .zero) }

    /// https://developer.apple.com/documentation/uikit/uiview/frame
    open var frame: CGRect
    /// https://developer.apple.com/documentation/uikit/uiview/bounds
    open var bounds: CGRect
    /// https://developer.apple.com/documentation/uikit/uiview/window
    open var window: UIWindow? { nil }
    /// https://developer.apple.com/documentation/uikit/uiview/autoresizingmask-swift.property
    open var autoresizingMask: UIView.AutoresizingMask = []
    /// https://developer.apple.com/documentation/uikit/uiview/contentmode-swift.property
    open var contentMode: UIView.ContentMode = .scaleToFill
    /// https://developer.apple.com/documentation/uikit/uitraitenvironment/traitcollection
    open var traitCollection: UITraitCollection { UITraitCollection() }

    /// https://developer.apple.com/documentation/uikit/uiview/addsubview(_:)
    open func addSubview(_ view: UIView) {}
    /// https://developer.apple.com/documentation/uikit/uiview/layoutsubviews()
    open func layoutSubviews() {}
    /// https://developer.apple.com/documentation/uikit/uiview/didmovetowindow()
    open func didMoveToWindow() {}

    /// https://developer.apple.com/documentation/uikit/uiview/autoresizingmask-swift.struct
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uiview/autoresizingmask-swift.struct/flexiblewidth
        public static let flexibleWidth = AutoresizingMask(rawValue: 1 << 1)
        /// https://developer.apple.com/documentation/uikit/uiview/autoresizingmask-swift.struct/flexibleheight
        public static let flexibleHeight = AutoresizingMask(rawValue: 1 << 4)
    }

    /// https://developer.apple.com/documentation/uikit/uiview/contentmode-swift.enum
    public enum ContentMode: Int, Sendable {
        /// https://developer.apple.com/documentation/uikit/uiview/contentmode-swift.enum/scaletofill
        case scaleToFill = 0
        /// https://developer.apple.com/documentation/uikit/uiview/contentmode-swift.enum/scaleaspectfit
        case scaleAspectFit = 1
    }
}

/// https://developer.apple.com/documentation/uikit/uitraitcollection
open class UITraitCollection: NSObject {
    /// https://developer.apple.com/documentation/uikit/uitraitcollection/displayscale
    open var displayScale: CGFloat { 1 }
}

/// https://developer.apple.com/documentation/uikit/uiimage
open class UIImage: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiimage/init(systemname:)
    public init?(systemName name: String) {}
    /// https://developer.apple.com/documentation/uikit/uiimage/init(data:)
    public init?(data: Data) {}
}

/// https://developer.apple.com/documentation/uikit/uiimageview
@MainActor
open class UIImageView: UIView {
    /// https://developer.apple.com/documentation/uikit/uiimageview/image
    open var image: UIImage?
}

/// https://developer.apple.com/documentation/uikit/uiwindow
@MainActor
open class UIWindow: UIView {
    /// https://developer.apple.com/documentation/uikit/uiwindow/rootviewcontroller
    open var rootViewController: UIViewController?
    /// https://developer.apple.com/documentation/uikit/uiwindow/iskeywindow
    open var isKeyWindow: Bool { false }
}

// MARK: Controls

/// https://developer.apple.com/documentation/uikit/uicontrol
@MainActor
open class UIControl: UIView {
    /// https://developer.apple.com/documentation/uikit/uicontrol/isselected
    open var isSelected: Bool = false

    /// https://developer.apple.com/documentation/uikit/uicontrol/addaction(_:for:)
    open func addAction(_ action: UIAction, for controlEvents: UIControl.Event) {}

    /// https://developer.apple.com/documentation/uikit/uicontrol/state-swift.struct
    public struct State: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uicontrol/state-swift.struct/normal
        public static let normal = State([])
    }

    /// https://developer.apple.com/documentation/uikit/uicontrol/event
    public struct Event: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uicontrol/event/touchupinside
        public static let touchUpInside = Event(rawValue: 1 << 6)
    }
}

/// https://developer.apple.com/documentation/uikit/uibutton
@MainActor
open class UIButton: UIControl {
    /// https://developer.apple.com/documentation/uikit/uibutton/settitle(_:for:)
    open func setTitle(_ title: String?, for state: UIControl.State) {}
}

/// https://developer.apple.com/documentation/uikit/uiactionhandler
public typealias UIActionHandler = (UIAction) -> Void

/// https://developer.apple.com/documentation/uikit/uiaction
@MainActor
open class UIAction: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiaction/init(title:image:identifier:discoverabilitytitle:attributes:state:handler:)
    public convenience init(title: String = "", image: UIImage? = nil, handler: @escaping UIActionHandler) {
        self.init()
    }
}

// MARK: View controllers

/// https://developer.apple.com/documentation/uikit/uiviewcontroller
@MainActor
open class UIViewController: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/popoverpresentationcontroller
    open var popoverPresentationController: UIPopoverPresentationController? { nil }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/present(_:animated:completion:)
    open func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)? = nil)
    {}
}

/// https://developer.apple.com/documentation/uikit/uipopoverpresentationcontroller
@MainActor
open class UIPopoverPresentationController: NSObject {
    /// https://developer.apple.com/documentation/uikit/uipopoverpresentationcontroller/sourceview
    open var sourceView: UIView?
}

/// https://developer.apple.com/documentation/uikit/uialertcontroller
@MainActor
open class UIAlertController: UIViewController {
    /// https://developer.apple.com/documentation/uikit/uialertcontroller/init(title:message:preferredstyle:)
    public convenience init(title: String?, message: String?, preferredStyle: UIAlertController.Style) { self.init() }
    /// https://developer.apple.com/documentation/uikit/uialertcontroller/addaction(_:)
    open func addAction(_ action: UIAlertAction) {}

    /// https://developer.apple.com/documentation/uikit/uialertcontroller/style
    public enum Style: Int, Sendable {
        /// https://developer.apple.com/documentation/uikit/uialertcontroller/style/actionsheet
        case actionSheet = 0
    }
}

/// https://developer.apple.com/documentation/uikit/uialertaction
@MainActor
open class UIAlertAction: NSObject {
    /// https://developer.apple.com/documentation/uikit/uialertaction/init(title:style:handler:)
    public convenience init(title: String?, style: UIAlertAction.Style, handler: ((UIAlertAction) -> Void)? = nil) {
        self.init()
    }

    /// https://developer.apple.com/documentation/uikit/uialertaction/style-swift.enum
    public enum Style: Int, Sendable {
        /// https://developer.apple.com/documentation/uikit/uialertaction/style-swift.enum/cancel
        case cancel = 1
        /// https://developer.apple.com/documentation/uikit/uialertaction/style-swift.enum/destructive
        case destructive = 2
    }
}

// MARK: The application and its scenes

/// https://developer.apple.com/documentation/uikit/uiapplication
@MainActor
open class UIApplication: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    open class var shared: UIApplication { UIApplication() }
    /// https://developer.apple.com/documentation/uikit/uiapplication/connectedscenes
    open var connectedScenes: Set<UIScene> { [] }

    /// The async form on https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:)
    open func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:]) async -> Bool { false }

    /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/openurloptionskey
    public struct OpenURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/launchoptionskey
    public struct LaunchOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

/// https://developer.apple.com/documentation/uikit/uiscene
@MainActor
open class UIScene: NSObject {}

/// https://developer.apple.com/documentation/uikit/uiwindowscene
@MainActor
open class UIWindowScene: UIScene {
    /// https://developer.apple.com/documentation/uikit/uiwindowscene/windows
    open var windows: [UIWindow] { [] }
}
