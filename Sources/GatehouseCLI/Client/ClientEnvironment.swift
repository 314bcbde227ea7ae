import GatehouseCore
import ArgumentParser
import Foundation
import GatehouseKit
import GatehouseProtocol

/// Exit statuses of the client commands, so scripts can tell outcomes apart.
enum ClientExit {
    static let failed: Int32 = 1
    static let cancelled: Int32 = 2
    static let unreachable: Int32 = 3
    static let notLoggedIn: Int32 = 4
}

extension ClientOptions {
    /// Installs an SDK environment: these settings, a file token cache per app, a file profile cache.
    ///
    /// With `--remote-cache-key` (or `GATEHOUSE_REMOTE_CACHE_KEY`) the token lives in the server's remote token
    /// cache instead, so another machine with the same app session is logged in too.
    func installEnvironment() throws -> GatehouseKitEnvironment {
        let settings = try settings()
        let session = try trustOptions.trust().urlSession()
        let directory = cacheDirectory ?? FileTokenCache.defaultDirectory()
        let tokenCache: any TokenCaching
        if let key = remoteCacheKey ?? Environment.value("GATEHOUSE_REMOTE_CACHE_KEY") {
            guard let proof = remoteCacheProof ?? Environment.value("GATEHOUSE_REMOTE_CACHE_PROOF") else {
                throw CLIError("--remote-cache-key needs --remote-cache-proof (or GATEHOUSE_REMOTE_CACHE_PROOF)")
            }
            do {
                tokenCache = try RemoteTokenCache(
                    sessionKey: key, sessionProof: proof, settings: settings, urlSession: session)
            } catch {
                throw CLIError("remote token cache: \(error)")
            }
        } else {
            tokenCache = FileTokenCache(
                directory: directory, keyName: FileTokenCache.defaultKeyName + "." + (settings.appID ?? ""))
        }
        let environment = GatehouseKitEnvironment(
            settings: settings, tokenCache: tokenCache, profileCache: FileProfileCache(directory: directory),
            urlSession: session)
        GatehouseKitEnvironment.current = environment
        return environment
    }
}

/// Turns SDK errors into one line a person understands, and the matching exit status. A server that cannot be
/// reached is asked once more, over TLS, whether its certificate is the reason (`trust`: `--ca-cert`).
func clientFailure(_ error: any Error, server: URL, trust: ServerTrust) async -> ExitCode {
    switch error {
    case let core as CoreError where core.code == .network:
        return exitWith(ClientExit.unreachable, await trust.unreachableMessage(server.absoluteString))
    case let core as CoreError where core.code == .accessTokenRequired:
        return exitWith(ClientExit.notLoggedIn, "not logged in. Run `gatehouse login` first.")
    case let graph as GraphAPIError:
        // 104/2500: the call needed a person's token and had only the app's client token (or none).
        if graph.code == 104 || graph.code == 2500 {
            return exitWith(
                ClientExit.notLoggedIn,
                "this call needs a logged-in person's access token (\(graph.message)). Run `gatehouse login` (a Limited Login gives none)."
            )
        }
        if ErrorRecovery.category(for: graph) == .loginRequired {
            return exitWith(
                ClientExit.notLoggedIn,
                (ErrorRecovery.userMessage(for: graph) ?? graph.message) + " Run `gatehouse login` again.")
        }
        return exitWith(
            ClientExit.failed,
            "the server refused: \(graph.message) (code \(graph.code)\(graph.subcode.map { "/\($0)" } ?? ""))")
    case let login as LoginError:
        return exitWith(ClientExit.failed, "login failed: \(login)")
    default:
        return exitWith(ClientExit.failed, "\(error)")
    }
}

func exitWith(_ status: Int32, _ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("gatehouse: \(message)\n".utf8))
    return ExitCode(status)
}

/// Runs one Graph request with the current token and returns its JSON.
func graphJSON(_ path: String, parameters: [String: Any] = [:], method: HTTPMethod = .get) async throws -> JSONValue {
    try await GraphRequest(graphPath: path, parameters: parameters, httpMethod: method).startJSON()
}

/// Pretty JSON text of a Graph reply, for people.
func prettyJSON(_ value: JSONValue) -> String {
    guard
        let object = try? JSONSerialization.jsonObject(
            with: Data(value.serialized().utf8), options: [.fragmentsAllowed]),
        let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    else { return value.serialized() }
    return String(decoding: data, as: UTF8.self)
}

extension GatehouseCommand {
    /// Waits for token-cache writes still in flight (a remote cache sends them in the background), so a
    /// command's login or logout is on the server before the process exits.
    public static func finishPendingWrites() async {
        guard let remote = GatehouseKitEnvironment.current.tokenCache as? RemoteTokenCache else { return }
        do {
            try await remote.flush()
        } catch {
            FileHandle.standardError.write(
                Data("gatehouse: the remote token cache did not save the change: \(error)\n".utf8))
        }
    }
}
