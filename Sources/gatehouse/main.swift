import ArgumentParser
import GatehouseCLI

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
