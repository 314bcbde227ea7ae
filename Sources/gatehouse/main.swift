import ArgumentParser
import GatehouseCLI
import Foundation
import NIOCore
import NIOPosix

if ProcessInfo.processInfo.environment["GATEHOUSE_NIO_EXECUTOR"] == "1" {
    NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
}

do {
    var command = try await GatehouseCommand.asyncParseAsRoot()
    if let executable = command as? any ExecutableCommand {
        try await executable.execute()
        await GatehouseCommand.finishPendingWrites()
    } else {
        try command.run() // --help, --version, and commands without work of their own
    }
} catch {
    GatehouseCommand.exit(withError: error)
}
