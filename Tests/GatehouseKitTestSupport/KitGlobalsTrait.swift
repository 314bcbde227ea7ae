import Testing

/// Marks suites whose tests replace process-wide SDK state (`GatehouseKitEnvironment.current`,
/// `ErrorRecovery.loginAttempter`): each of their tests runs alone among all tests so marked, in any test target.
///
/// `.serialized` orders the tests of one suite only. The fast suites (`GraphSerialTests` in GatehouseKitTests) and
/// the live ones (`LiveGraphSerialTests` in GatehouseIntegrationTests) run in one test process, so they share
/// this lock instead.
package struct KitGlobalsTrait: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope holds nothing: its tests take the lock one at a time.
        guard testCase != nil, !test.isSuite else { return try await function() }
        await KitGlobalsLock.shared.acquire()
        do {
            try await function()
        } catch {
            await KitGlobalsLock.shared.release()
            throw error
        }
        await KitGlobalsLock.shared.release()
    }
}

extension Trait where Self == KitGlobalsTrait {
    /// See ``KitGlobalsTrait``.
    package static var kitGlobals: Self { Self() }
}

/// A lock that waits without blocking a thread.
private actor KitGlobalsLock {
    static let shared = KitGlobalsLock()
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            held = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
