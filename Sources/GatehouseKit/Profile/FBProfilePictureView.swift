#if canImport(UIKit)
import UIKit

/// Facebook's `FBProfilePictureView`: a person's profile picture with a silhouette placeholder,
/// reloaded when the person, the token, the profile or the view's size changes. The decisions live in
/// ``ProfilePictureViewModel``; this view only loads and shows what it says.
@MainActor
open class FBProfilePictureView: UIView {
    public let model: ProfilePictureViewModel
    private let imageView = UIImageView()
    private var loadTask: Task<Void, Never>?

    /// Whose picture; `"me"` (the default) is the current person.
    /// nil shows the placeholder (the seeds' `profileID = nil`); Facebook's `AccessToken.current!.userID` assigns as before.
    public var profileID: String? {
        get { model.profileID }
        set { model.profileID = newValue }
    }

    public var pictureMode: Profile.PictureMode {
        get { model.pictureMode }
        set { model.pictureMode = newValue }
    }

    public override init(frame: CGRect) {
        model = ProfilePictureViewModel()
        super.init(frame: frame)
        setUp()
    }

    public required init?(coder: NSCoder) {
        model = ProfilePictureViewModel()
        super.init(coder: coder)
        setUp()
    }

    private static var placeholder: UIImage? { UIImage(systemName: "person.crop.square.fill") }

    private func setUp() {
        imageView.frame = bounds
        imageView.autoresizingMask = [.flexibleWidth, .flexibleHeight]
        imageView.contentMode = .scaleAspectFit
        imageView.image = Self.placeholder
        addSubview(imageView)
        model.onImageURLChange = { [weak self] url in
            guard let self else { return }
            Task { @MainActor in self.load(url) }
        }
        updateModelSize()
        load(model.imageURL)
    }

    open override func layoutSubviews() {
        super.layoutSubviews()
        updateModelSize()
    }

    private func updateModelSize() {
        model.size = bounds.size
        model.scale = max(traitCollection.displayScale, 1)
    }

    private func load(_ url: URL?) {
        loadTask?.cancel()
        guard let url else {
            imageView.image = Self.placeholder
            return
        }
        loadTask = Task { [weak self] in
            guard let loaded = try? await URLSession.shared.data(from: url), !Task.isCancelled,
                let image = UIImage(data: loaded.0)
            else { return }
            self?.imageView.image = image
        }
    }
}
#endif
