import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a URLSession's `https://` requests with AsyncHTTPClient, whose TLS configuration can trust extra roots
/// (``ServerTrust``). Foundation creates the protocol objects itself, so the client they share is installed once
/// per process, before the session is made (the CLI runs one command a process).
final class TrustedHTTPSProtocol: URLProtocol, @unchecked Sendable {
    private static let shared = NIOLockedValueBox<HTTPClient?>(nil)
    /// The largest answer read: far above any Graph or admin reply, so a runaway body cannot fill the memory.
    private static let maximumBody = 64 << 20
    private let work = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Makes the client every later request uses; the first installation stays (one command, one trust).
    static func install(_ tls: TLSConfiguration) {
        shared.withLockedValue { client in
            if client == nil {
                client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            }
        }
    }

    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.scheme?.lowercased() == "https" && shared.withLockedValue { $0 != nil }
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let http = Self.shared.withLockedValue({ $0 }), let url = request.url else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        // Foundation's request and client types are not Sendable; this object owns both for the one request.
        let loading = Loading(owner: self, request: request, url: url)
        let task = Task { await loading.run(with: http) }
        work.withLockedValue { $0 = task }
    }

    override func stopLoading() {
        work.withLockedValue { $0?.cancel() }
    }

    /// One request on its way: sends it and reports to the protocol's client.
    private struct Loading: @unchecked Sendable {
        let owner: TrustedHTTPSProtocol
        let request: URLRequest
        let url: URL

        func run(with http: HTTPClient) async {
            do {
                let (response, body) = try await TrustedHTTPSProtocol.send(request, url: url, with: http)
                owner.client?.urlProtocol(owner, didReceive: response, cacheStoragePolicy: .notAllowed)
                owner.client?.urlProtocol(owner, didLoad: body)
                owner.client?.urlProtocolDidFinishLoading(owner)
            } catch {
                let code: URLError.Code =
                    ServerTrust.certificateFailure(error) != nil ? .serverCertificateUntrusted : .cannotConnectToHost
                owner.client?.urlProtocol(owner, didFailWithError: URLError(code))
            }
        }
    }

    private static func send(_ request: URLRequest, url: URL, with http: HTTPClient) async throws -> (
        HTTPURLResponse, Data
    ) {
        var outgoing = HTTPClientRequest(url: url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] { outgoing.headers.add(name: name, value: value) }
        if let body = request.httpBody ?? request.httpBodyStream.map(read) {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        let seconds = request.timeoutInterval > 0 ? Int64(request.timeoutInterval.rounded(.up)) : 60
        let response = try await http.execute(outgoing, timeout: .seconds(seconds))
        let body = try await response.body.collect(upTo: maximumBody)
        var headers: [String: String] = [:]
        for (name, value) in response.headers { headers[name] = headers[name].map { $0 + ", " + value } ?? value }
        guard
            let answer = HTTPURLResponse(
                url: url, statusCode: Int(response.status.code), httpVersion: "HTTP/1.1", headerFields: headers)
        else { throw URLError(.badServerResponse) }
        return (answer, Data(body.readableBytesView))
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        stream.open()
        defer { stream.close() }
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }
}
