import GatehouseCore
import Foundation
import Hummingbird
import NIOCore

/// Serves profile pictures: the uploaded PNG, or a generated avatar at the requested size.
///
/// Public like Facebook's CDN URLs: the path names the app and the app-scoped id, never the global id.
struct PictureController: Sendable {
    let services: GatehouseServices

    func register(on router: Router<GatehouseRequestContext>) {
        router.get("/pictures/:app/:user") { request, context in
            let appID = try context.parameters.require("app"), scoped = try context.parameters.require("user")
            let size = min(max(request.uri.queryParameters.get("size", as: Int.self) ?? 100, 16), 1024)
            guard appID.count <= 20, scoped.count <= 20,
                let userID = try await services.storage.users.userID(appID: appID, scopedID: scoped),
                let user = try await services.storage.users.find(id: userID)
            else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain"],
                    body: .init(byteBuffer: ByteBuffer(string: "no such picture")))
            }
            let bytes =
                user.picture.map { [UInt8]($0) }
                ?? AvatarRenderer.render(
                    seed: appID + "/" + scoped, initials: String(user.firstName.prefix(1) + user.lastName.prefix(1)),
                    size: size)
            var headers = HTTPFields()
            headers[.contentType] = "image/png"
            headers[.cacheControl] = "public, max-age=86400"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        // An app's picture on the login, consent and settings pages: generated from its id and name.
        router.get("/app-icons/:file") { request, context in
            let file = try context.parameters.require("file")
            let appID = file.hasSuffix(".png") ? String(file.dropLast(4)) : file
            let size = min(max(request.uri.queryParameters.get("size", as: Int.self) ?? 96, 16), 512)
            guard appID.count <= 20, let app = try await services.storage.apps.find(id: appID) else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain"],
                    body: .init(byteBuffer: ByteBuffer(string: "no such picture")))
            }
            let words = app.name.split(separator: " ")
            let initials = String((words.first?.prefix(1) ?? "A") + (words.dropFirst().first?.prefix(1) ?? ""))
            var headers = HTTPFields()
            headers[.contentType] = "image/png"
            headers[.cacheControl] = "public, max-age=3600"
            return Response(
                status: .ok, headers: headers,
                body: .init(
                    byteBuffer: ByteBuffer(
                        bytes: AvatarRenderer.render(seed: "app:" + app.id, initials: initials, size: size))))
        }
    }
}
