import ArgumentParser
import GatehouseCLI
import Foundation
import NIOCore
import NIOPosix

// Swift Concurrency's jobs run on NIO's event loops (NIO keeps a job on the loop it was enqueued from), so a
// request's awaits resume where its socket is read instead of hopping to the cooperative pool and back: hot
// `/me` and `debug_token` cost about a third less CPU (docs/BENCHMARKS.md). Nothing in the server blocks a task
// (bcrypt, SQLite and DNS run on thread pools). It must happen before the first task starts;
// `GATEHOUSE_NIO_EXECUTOR=0` keeps Swift's own pool, and so does `gatehouse bench pipeline`, whose
// EmbeddedEventLoop may be used only from the thread that made it.
let probesThePipeline = CommandLine.arguments.dropFirst().prefix(2).elementsEqual(["bench", "pipeline"])
if ProcessInfo.processInfo.environment["GATEHOUSE_NIO_EXECUTOR"] != "0" && !probesThePipeline {
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}

do {
    var command = try await GatehouseCommand.asyncParseAsRoot()
    if let executable = command as? any ExecutableCommand {
        try await executable.execute()
        await GatehouseCommand.finishPendingWrites()
    } else {
        try command.run()  // --help, --version, and commands without work of their own
    }
} catch {
    GatehouseCommand.exit(withError: error)
}
